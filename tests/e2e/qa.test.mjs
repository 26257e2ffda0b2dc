// Inputs a new user brings that the other files do not: an empty file, a file of only corrupt
// lines, UTF-16 text, a run id of a megabyte, agent and tool names of 100 KB, 20,000 agents in
// one run, chat records whose messages carry HTML and Markdown links / images to other hosts,
// and a narrow (800 px) window.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { readFile } from 'node:fs/promises';
import { serveDist, launch, newPage, screenshot, waitReady, rowsAt, unfoldAll, FIXTURES } from './harness.mjs';
import { tempFile, scratchDir, line } from './gen.mjs';

let srv, browser;
before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

async function open(file, opts) {
  const p = await newPage(browser, opts);
  await p.page.goto(srv.url);
  await p.page.setInputFiles('[data-testid="file-input"]', file);
  await waitReady(p.page);
  return p;
}

test('a file with no trajectory says so, not that a trajectory has no steps', async () => {
  const cases = [
    ['empty.jsonl', '', /^0 \(0 parsed/, /the file is empty: there is no trace in it/],
    ['blank.jsonl', '\n  \n\n', /^3 \(0 parsed/, /the file holds only blank lines \(3\)/],
    ['corrupt.jsonl', '{"a": \n not json\n{{{\n', /^3 \(0 parsed/, /not valid JSON|invalid JSON/],
  ];
  for (const [name, content, lines, why] of cases) {
    const { page, context, errors } = await open(await tempFile(name, content));
    assert.match(await page.textContent('[data-testid="lines"]'), lines);
    assert.match(await page.textContent('.app'), why, name);
    assert.equal(await page.locator('[data-testid="queue-item"]').count(), 0);
    assert.equal(await page.textContent('[data-testid="no-steps"]'),
      'This file has no trajectory: it is empty or every line was quarantined.');
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('UTF-16 text is named as such, with the command that converts it', async () => {
  const text = await readFile(join(FIXTURES, 'chat', 'openai_messages.jsonl'), 'utf8');
  const path = await tempFile('utf16.jsonl', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]));
  const { page, context, errors } = await open(path);
  assert.match(await page.textContent('.app'), /looks like UTF-16LE text; trajscope reads UTF-8 \(convert it, e\.g\. with `iconv -f UTF-16LE -t UTF-8`\)/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('HTML and Markdown links or images in chat messages stay text and fetch nothing', async () => {
  const P = [
    '<script>window.__xss=(window.__xss||0)+1</script>',
    '<img src="http://127.0.0.1:9/img.png" onerror="window.__xss=1">',
    '![pic](http://127.0.0.1:9/md.png)',
    '[click](javascript:window.__xss=1)',
    '[ref]: http://127.0.0.1:9/ref\n\n![ref img][ref]',
    '<iframe src="javascript:window.__xss=1"></iframe><style>body{display:none}</style>',
  ];
  const body = P.join('\n\n');
  const rec = {
    id: 'html-in-chat',
    messages: [
      { role: 'user', content: '# Title <b>bold</b>\n\n' + body },
      { role: 'assistant', content: body, tool_calls: [{ id: 'c1', type: 'function', function: { name: '<b>bash</b>', arguments: JSON.stringify({ command: P[0] }) } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'Error: ' + P[1] + '\n' + P[2] },
      { role: 'assistant', content: 'Final: ' + P[3] + ' ' + P[2] },
    ],
  };
  const { page, context, errors, requests } = await open(await tempFile('html.jsonl', line(rec)));
  assert.equal(await page.locator('[data-testid="step"]').count(), 4);
  // Every card unfolded, at the most detailed grain (high): all of the text is on the page.
  await page.keyboard.press('1');
  await rowsAt(page, 'high');
  await unfoldAll(page);
  assert.equal(await page.evaluate(() => window.__xss), undefined, 'no payload ran');
  const injected = await page.evaluate(() => document.querySelectorAll(
    '.app script, .app img, .app iframe, .app style, .app b, .app a[href^="javascript"], .app a[href^="http"]').length);
  assert.equal(injected, 0, 'no element came from the trace');
  const shown = (await page.locator('[data-testid="step-text"]').allTextContents()).join('\n');
  assert.ok(shown.includes('<script>window.__xss'), 'the payload is shown as text');
  // Rendered Markdown (the user's message) names an image; a tool call's message is shown as written.
  assert.ok(shown.includes('[image: pic]'), 'a Markdown image is named, not loaded');
  assert.ok(shown.includes('![pic](http://127.0.0.1:9/md.png)'), 'the raw Markdown is shown as text');
  assert.ok(await page.evaluate(() => getComputedStyle(document.body).display !== 'none'), 'no style applied');
  const others = requests.filter((u) => !u.startsWith(srv.url));
  assert.deepEqual(others, [], 'nothing is requested beyond the page itself');
  assert.deepEqual(errors, []);
  await screenshot(page, 'qa-html-chat');
  await context.close();
});

test('an 800 px window keeps the top bar on screen and the queue ids whole on hover', async () => {
  const { page, context, errors } = await open(join(FIXTURES, 'chat', 'openai_messages.jsonl'),
    { viewport: { width: 800, height: 700 } });
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 800),
    'the page does not scroll sideways');
  for (const id of ['mode-review', 'mode-annotate', 'mode-compare', 'help-toggle']) {
    const box = await page.locator(`[data-testid="${id}"]`).boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= 800, `${id} is on screen (${box.x}+${box.width})`);
  }
  await page.click('[data-testid="mode-compare"]');
  await page.waitForSelector('[data-testid="compare-list"]');
  // A long id is cut with an ellipsis in the row; its title holds it whole.
  const titles = await page.locator('[data-testid="queue-item"] .qid').evaluateAll((els) => els.map((e) => e.title));
  assert.deepEqual(titles, ['calc-rounding-7', 'calc-sum-2', 'line-4']);
  await screenshot(page, 'qa-narrow');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a run id of a megabyte stays whole in a two-line box that scrolls; the transcript stays in view', async () => {
  const id = 'r'.repeat(1_000_000);
  const file = await tempFile('huge-id.awtl.jsonl', line({ type: 'action', run_id: id, command: 'ls' }));
  const { page, context, errors } = await open(file, { viewport: { width: 1400, height: 900 } });
  const box = page.locator('[data-testid="traj-id"]');
  assert.equal((await box.textContent()).length, id.length, 'the id is whole, to scroll and copy');
  const { height, scrollHeight } = await box.evaluate((e) => ({ height: e.clientHeight, scrollHeight: e.scrollHeight }));
  assert.ok(height < 60, `the id's box is ${height} px high`);
  assert.ok(scrollHeight > height, 'and scrolls');
  const step = await page.locator('[data-testid="step"]').first().boundingBox();
  assert.ok(step && step.y + step.height < 900, `the first step is on screen (${JSON.stringify(step)})`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('an agent and a tool named in 100 KB each: the diagnosis, candidates and overview stay a few lines high', async () => {
  const agent = 'agent-' + 'a'.repeat(100_000), tool = 'tool-' + 't'.repeat(100_000);
  const call = { type: 'action', run_id: 'r1', agent, tool, command: 'rm -rf build' };
  const fail = { type: 'observation', run_id: 'r1', exit_code: 1, output: 'error: failed' };
  const file = await tempFile('huge-names.awtl.jsonl', [
    { type: 'run_start', run_id: 'r1', task: 'do it' }, call, fail, call, fail,
    { type: 'run_end', run_id: 'r1', status: 'failed' },
  ].map(line).join(''));
  const { page, context, errors } = await open(file, { viewport: { width: 1400, height: 900 } });
  await page.waitForSelector('[data-testid="diagnosis-who"]');
  await page.waitForSelector('[data-testid="candidate"]');
  assert.ok((await page.textContent('[data-testid="diagnosis-who"]')).includes(agent), 'the name is whole in the page');
  const high = async (sel) => (await page.locator(sel).first().boundingBox()).height;
  for (const sel of ['[data-testid="diagnosis-who"]', '[data-testid="candidate"]', '[data-testid="critical"]', '[data-testid="tool-name"]']) {
    const h = await high(sel);
    assert.ok(h < 80, `${sel} is ${h} px high`);
  }
  const step = await page.locator('[data-testid="step"]').first().boundingBox();
  assert.ok(step && step.y < 900, `the transcript starts on screen (${JSON.stringify(step)})`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a run of 20,000 agents offers the first 200 in its lists, not 40,000 option nodes', async () => {
  const lines = [line({ type: 'run_start', run_id: 'r1', task: 'many agents' })];
  for (let i = 0; i < 20_000; i++) lines.push(line({ type: 'action', run_id: 'r1', agent: `agent-${i}`, tool: 'shell', command: `echo ${i}` }));
  lines.push(line({ type: 'run_end', run_id: 'r1', status: 'failed' }));
  const { page, context, errors } = await open(await tempFile('many-agents.awtl.jsonl', lines.join('')));
  await page.waitForSelector('[data-testid="step"]');
  const filter = await page.locator('[data-testid="filter-agent"] option').count();
  assert.equal(filter, 201, 'all agents and the first 200');
  await page.selectOption('[data-testid="filter-agent"]', { label: 'agent-199' });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="step"]').length === 1);
  assert.match(await page.textContent('[data-testid="step"]'), /agent-199/);
  await page.click('[data-testid="mode-annotate"]');
  await page.waitForSelector('[data-testid="label-agent"]');
  assert.equal(await page.locator('datalist option').count(), 200);
  const nodes = await page.evaluate(() => document.querySelectorAll('*').length);
  assert.ok(nodes < 5000, `${nodes} nodes`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the critical step of a JSON document shows no "line 0"', async () => {
  const { page, context, errors } = await open(join(FIXTURES, 'openai_agents', 'refund_handoff.batch.json'));
  await page.waitForFunction(() => /^#\d+/.test(document.querySelector('[data-testid="critical"]')?.textContent ?? ''));
  assert.equal(await page.textContent('[data-testid="critical"]'), '#5 (Refund agent)');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a queue of many records ends within the window: its last row is on screen, no second scroll', async () => {
  const recs = [];
  for (let i = 0; i < 400; i++) {
    recs.push(line({ id: `rec-${i}`, messages: [{ role: 'user', content: `add ${i} and 1` }, { role: 'assistant', content: `${i + 1}` }] }));
  }
  const path = await tempFile('many.jsonl', recs.join(''));
  for (const width of [1400, 800]) {
    const { page, context, errors } = await open(path, { viewport: { width, height: 900 } });
    await page.evaluate(() => { const s = document.querySelector('[data-testid="queue-scroller"]'); s.scrollTop = s.scrollHeight; });
    await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="queue-item"] .qid')].some((e) => e.textContent === 'rec-399'));
    const box = await page.locator('[data-testid="queue-item"]', { hasText: 'rec-399' }).boundingBox();
    assert.ok(box.y + box.height <= 900, `the last row ends at ${box.y + box.height} px in a 900 px window (${width} px wide)`);
    assert.equal(await page.evaluate(() => document.querySelector('.queue').scrollTop), 0);
    assert.deepEqual(errors, []);
    await context.close();
  }
});

test('random bytes are named a binary file, not only a JSON error at line 1', async () => {
  // Deterministic bytes (a linear congruential generator), some of them `{`, `"` and newlines.
  const bytes = Buffer.alloc(20000);
  let x = 12345;
  for (let i = 0; i < bytes.length; i++) { x = (x * 1103515245 + 12345) >>> 0; bytes[i] = x >>> 24; }
  bytes[0] = 0x22;
  const { page, context, errors } = await open(await tempFile('blob.bin', bytes));
  assert.match(await page.textContent('.app'), /it looks like a binary file, not a trace/);
  assert.equal(await page.textContent('[data-testid="no-steps"]'),
    'This file has no trajectory: it is empty or every line was quarantined.');
  assert.deepEqual(errors, []);
  await context.close();
});

// A second pass with files of shapes the project had not seen (2026-12-03).
test('a queued file with no trajectory opens to say why; searching it ends', async () => {
  const good = await tempFile('good.jsonl', line({ type: 'run_start', run_id: 'r1' }) +
    line({ type: 'action', run_id: 'r1', agent: 'coder', tool: 'shell', command: 'make' }) +
    line({ type: 'run_end', run_id: 'r1', status: 'failed' }));
  const bad = await tempFile('bad.jsonl', 'not json\n{"a":\n');
  const p = await newPage(browser);
  const { page, context, errors } = p;
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', [bad, good]);
  await waitReady(page);
  await page.locator('[data-testid="queue-item"]').first().click();
  await page.waitForSelector('[data-testid="step"]');
  // The file of corrupt lines: its row opens its view, with its quarantined lines.
  await page.click('[data-testid="queue-empty-file"]');
  await page.waitForSelector('[data-testid="no-steps"]');
  assert.equal(await page.textContent('[data-testid="no-steps"]'),
    'This file has no trajectory: it is empty or every line was quarantined.');
  assert.equal(await page.locator('[data-testid="quarantine-entry"]').count(), 2);
  assert.equal(await page.getAttribute('[data-testid="queue-empty-file"]', 'aria-current'), 'true');
  await page.fill('[data-testid="search"]', 'json');
  await page.waitForFunction(() => document.querySelector('[data-testid="search-count"]').textContent === '0 matches');
  assert.deepEqual(errors, []);
  await context.close();
});

test('bidirectional controls in trace text reorder nothing of the page and are flagged', async () => {
  const path = await tempFile('bidi.jsonl', line({ type: 'run_start', run_id: 'r1' }) +
    line({ type: 'action', run_id: 'r1', agent: 'bu\u202eild\u202dbot', tool: 'shell', command: 'cat report\u202egnp.exe' }) +
    line({ type: 'observation', run_id: 'r1', exit_code: 1, output: 'error: failed' }) +
    line({ type: 'run_end', run_id: 'r1', status: 'failed' }));
  const { page, context, errors } = await open(path);
  await page.waitForSelector('[data-testid="tag-bidi"]');
  assert.equal(await page.locator('[data-testid="tag-bidi"]').count(), 1);
  // Every element of the page is a bidi isolate: an override left open ends with its element.
  const who = page.locator('[data-testid="diagnosis-who"]');
  assert.equal(await who.evaluate((e) => getComputedStyle(e.querySelector('*') || e).unicodeBidi), 'isolate');
  await screenshot(page, 'qa-bidi');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a bidi control inside one element shows as a mark and reorders none of its text; copies stay verbatim', async () => {
  // Found by QA: every element is an isolate, but an override inside a message still turned
  // the rest of that message around ("abc\u202Edef" read "abcfed").
  const R = 'run-bidi';
  const path = await tempFile('bidi-marks.jsonl',
    line({ type: 'run_start', run_id: R, task: 'Fix the report exporter' }) +
    line({ type: 'message', run_id: R, turn_id: 't1', role: 'user', content: 'abc\u202edef and **bold gh\u202eij** text' }) +
    line({ type: 'action', run_id: R, turn_id: 't2', span_id: 's2', action_id: 'a2', agent: 'co\u202eder', tool: 'shell', command: 'cat report\u202egnp.exe', artifact_refs: ['src/export.ts'] }) +
    line({ type: 'observation', run_id: R, turn_id: 't2', span_id: 's2', exit_code: 1, output: 'error: report\u202egnp.exe not found' }) +
    line({ type: 'judge_result', run_id: R, turn_id: 't3', judge_name: 'verifier', status: 'failed', detail: 'the export \u202efailed' }) +
    line({ type: 'run_end', run_id: R, status: 'failed' }));
  const { page, context, errors } = await open(path);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.origin });
  // The message (Markdown): each control is a mark, named in its tooltip; the text around it
  // is in its stored order.
  await rowsAt(page);
  const msg = page.locator('[data-testid="step"][data-step="1"] [data-testid="step-text"]');
  assert.equal((await msg.textContent()).trim(), 'abc⟨U+202E⟩def and bold gh⟨U+202E⟩ij text');
  const marks = msg.locator('[data-testid="bidi-mark"]');
  assert.equal(await marks.count(), 2);
  assert.match(await marks.first().getAttribute('title'), /^U\+202E RIGHT-TO-LEFT OVERRIDE/);
  const at = await msg.evaluate((el) => {
    const left = (node, i) => {
      const r = document.createRange();
      r.setStart(node, i);
      r.setEnd(node, i + 1);
      return r.getBoundingClientRect().left;
    };
    const walk = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const nodes = {};
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      for (const k of ['abc', 'def', 'ij']) if (n.data.startsWith(k)) nodes[k] = n;
    }
    const mark = el.querySelector('[data-testid="bidi-mark"]').getBoundingClientRect();
    return {
      a: left(nodes.abc, 0), c: left(nodes.abc, 2), d: left(nodes.def, 0), f: left(nodes.def, 2),
      i: left(nodes.ij, 0), j: left(nodes.ij, 1), markLeft: mark.left, markRight: mark.right,
    };
  });
  assert.ok(at.a < at.c && at.c < at.markLeft && at.markRight <= at.d + 1 && at.d < at.f && at.i < at.j,
    `visual order: ${JSON.stringify(at)}`);
  // The agent name, the tool call's arguments, the diagnosis's who and quotes, the brief.
  const actor = page.locator('[data-testid="step"][data-step="2"] [data-testid="step-actor"]');
  assert.equal(await actor.textContent(), 'co⟨U+202E⟩der');
  assert.equal(await actor.getAttribute('title'), 'co⟨U+202E⟩der');
  assert.match(await page.textContent('[data-testid="step"][data-step="2"] [data-testid="tool-args"]'), /cat report⟨U\+202E⟩gnp\.exe/);
  const card = page.locator('[data-testid="diagnosis"]');
  assert.match(await card.locator('[data-testid="diagnosis-who"]').textContent(), /co⟨U\+202E⟩der/);
  assert.equal(await card.locator('[data-testid="diagnosis-who"] [data-testid="bidi-mark"]').count(), 1);
  assert.match(await card.locator('[data-testid="diagnosis-wrong"] blockquote').first().textContent(), /report⟨U\+202E⟩gnp\.exe/);
  const brief = page.locator('[data-testid="diagnosis-brief"]');
  await brief.waitFor();
  const shown = await brief.textContent();
  assert.match(shown, /What you tried: shell: cat report⟨U\+202E⟩gnp\.exe\. Why it failed: the export ⟨U\+202E⟩failed\./);
  assert.ok((await brief.locator('[data-testid="bidi-mark"]').count()) >= 2);
  // Copy gives the brief as stored, controls included.
  await page.click('[data-testid="diagnosis-copy-brief"]');
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  assert.equal(copied, shown.replaceAll('⟨U+202E⟩', '\u202e'));
  assert.ok(copied.includes('cat report\u202egnp.exe'));
  // No control is left in the page's text to act; every card that held one is tagged.
  assert.ok(!(await page.textContent('.app')).includes('\u202e'), 'a control left in the page');
  assert.equal(await page.locator('[data-testid="tag-bidi"]').count(), 4);
  await screenshot(page, 'qa-bidi-marks');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a file of an archive keeps its own name in view in the queue; a file-wide brief says so', async () => {
  const { execFileSync } = await import('node:child_process');
  const { mkdir, writeFile } = await import('node:fs/promises');
  const dir = await scratchDir('qa-');
  const sub = join(dir, 'a-rather-long-folder-name-of-runs', 'nested');
  await mkdir(sub, { recursive: true });
  const run = (id, status) => line({ type: 'run_start', run_id: id }) +
    line({ type: 'action', run_id: id, agent: 'coder', tool: 'shell', command: 'make test' }) +
    line({ type: 'observation', run_id: id, exit_code: status === 'failed' ? 1 : 0, output: status === 'failed' ? 'Error: 2 tests failed' : 'ok' }) +
    line({ type: 'run_end', run_id: id, status });
  await writeFile(join(sub, 'b.jsonl'), run('r1', 'failed') + run('r2', 'passed'));
  const zip = join(dir, 'runs.zip');
  execFileSync('zip', ['-qr', zip, 'a-rather-long-folder-name-of-runs'], { cwd: dir });
  const { page, context, errors } = await open(zip);
  const name = page.locator('[data-testid="queue-file-name"]');
  assert.equal(await name.textContent(), 'runs.zip!a-rather-long-folder-name-of-runs/nested/b.jsonl');
  const base = name.locator('.qname-base');
  assert.equal(await base.textContent(), 'b.jsonl');
  assert.ok(await base.evaluate((e) => e.scrollWidth <= e.clientWidth + 1), 'the member name is cut');
  assert.match(await page.textContent('[data-testid="brief-scope"]'), /For the whole file: the cases of its 2 trajectories/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a step kept in part (a 20,000-character output) is read whole from the file on demand', async () => {
  const { gzipSync } = await import('node:zlib');
  const long = 'a'.repeat(9000) + ' MIDDLE-MARKER ' + 'b'.repeat(11000);
  const obs = line({ type: 'observation', run_id: 'r1', exit_code: 1, output: long });
  const text = line({ type: 'run_start', run_id: 'r1' }) +
    line({ type: 'action', run_id: 'r1', agent: 'coder', tool: 'shell', command: 'make' }) + obs +
    line({ type: 'run_end', run_id: 'r1', status: 'failed' });
  const { page, context, errors } = await open(await tempFile('long.jsonl', text));
  const card = page.locator('[data-testid="step"][data-step="2"]');
  await card.locator('[data-testid="source-open"]').click();
  await page.waitForSelector('[data-testid="source-text"]');
  // The record exactly as the file holds it: the line, with the middle no view shows.
  assert.equal(await page.textContent('[data-testid="source-text"]'), obs.trimEnd());
  assert.equal(await page.locator('[data-testid="step"] :text("MIDDLE-MARKER")').count(), 0);
  await screenshot(page, 'qa-source');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid="source"]', { state: 'detached' });
  await context.close();
  // An archive's member is its decompressed bytes, kept on the page: its record is read the same.
  const { execFileSync } = await import('node:child_process');
  const { dirname, basename } = await import('node:path');
  const plain = await tempFile('member.jsonl', text);
  const zip = join(dirname(plain), 'runs.zip');
  execFileSync('zip', ['-q', zip, basename(plain)], { cwd: dirname(plain) });
  const z = await open(zip);
  await z.page.locator('[data-testid="step"][data-step="2"] [data-testid="source-open"]').click();
  await z.page.waitForSelector('[data-testid="source-text"]');
  assert.equal(await z.page.textContent('[data-testid="source-text"]'), obs.trimEnd());
  await z.context.close();
  // A compressed file cannot be sliced at the decoded offsets: the dialog says so.
  const gz = await open(await tempFile('long.jsonl.gz', gzipSync(Buffer.from(text))));
  await gz.page.locator('[data-testid="step"][data-step="2"] [data-testid="source-open"]').click();
  assert.match(await gz.page.textContent('[data-testid="source-unavailable"]'), /The file is compressed: .*open the decompressed file/);
  await gz.context.close();
  // A format whose records' extent the reader does not keep: the record is read to its line's end.
  const rec = line({ event: 'log', level: 'info', message: long });
  const gen = await open(await tempFile('generic.jsonl', line({ event: 'start' }) + rec + line({ event: 'end' })));
  await gen.page.locator('[data-testid="source-open"]').first().click();
  assert.equal(await gen.page.textContent('[data-testid="source-text"]'), rec.trimEnd());
  await gen.context.close();
  // A pretty-printed list of chat records: the record's first line is not the record; the
  // dialog shows that line and says so.
  const list = JSON.stringify([{ id: 'c1', messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: long }] }], null, 2);
  const pretty = await open(await tempFile('chat-list.json', list + '\n'));
  await pretty.page.locator('[data-testid="source-open"]').first().click();
  await pretty.page.waitForSelector('[data-testid="source-text"]');
  assert.match(await pretty.page.textContent('[data-testid="source"]'), /not one JSON value: the record goes on over the next lines/);
  assert.deepEqual([...errors, ...gz.errors, ...gen.errors, ...pretty.errors], []);
  await pretty.context.close();
});

test('lines quarantined together for one reason are one entry of the panel, the export keeps each', async () => {
  const doc = JSON.stringify({ steps: [{ thought: 'a' }, { thought: 'b' }], final: 'x' }, null, 2) + '\n';
  const { page, context, errors } = await open(await tempFile('unknown.json', doc));
  const n = doc.trimEnd().split('\n').length;
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), String(n));
  const entries = page.locator('[data-testid="quarantine-entry"]');
  assert.equal(await entries.count(), 1);
  assert.equal(await entries.first().getAttribute('data-lines'), String(n));
  assert.match(await entries.first().textContent(), new RegExp(`lines 1–${n}`));
  assert.match(await page.textContent('[data-testid="quarantine-raw"]'), /"steps": \[/);
  assert.deepEqual(errors, []);
  await context.close();
});
