// The review-first page: the diagnosis card on the first screen (critical step and its quotes
// inside the 1400×900 viewport, no scrolling), a Claude Code session as a transcript of tool-call
// cards carrying their file paths, Markdown rendered as structured text (never HTML), a second
// opened file becoming the view, every mode and the queue from the keyboard, the diagnosis and
// the transcript's start on the first screen at 800×600, 1024×768 and 1400×900, and a bounded DOM with
// 100,000 steps of varying height.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady, rowsAt, ROOT, FIXTURES } from './harness.mjs';
import { tempFile, line, steps } from './gen.mjs';

const SAMPLE = join(ROOT, 'web', 'samples', 'sample.awtl.jsonl');
const CLAUDE = join(FIXTURES, 'claude_code', 'coverage-test-fix.jsonl');
let srv, browser;

before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

async function open(path, opts = {}) {
  const p = await newPage(browser, { viewport: { width: 1400, height: 900 }, ...opts });
  await p.page.goto(srv.url);
  await p.page.setInputFiles('[data-testid="file-input"]', path);
  await waitReady(p.page);
  return p;
}

/** Asserts the element's box lies wholly inside the viewport. */
async function onFirstScreen(page, locator, what) {
  const box = await locator.boundingBox();
  assert.ok(box, `${what} is rendered`);
  const vp = page.viewportSize();
  assert.ok(box.x >= 0 && box.y >= 0 && box.x + box.width <= vp.width && box.y + box.height <= vp.height,
    `${what} inside ${vp.width}x${vp.height}: ${JSON.stringify(box)}`);
}

test('the diagnosis card shows the critical step and its quotes on the first screen', async () => {
  const { page, context, errors } = await open(SAMPLE);
  const card = page.locator('[data-testid="diagnosis"]');
  await card.locator('[data-testid="diagnosis-step"]').waitFor();
  assert.equal(await card.getAttribute('data-outcome'), 'failed');
  // The critical step is the analysis' (the overview says the same).
  const critical = await page.textContent('[data-testid="critical"]');
  const step = await card.locator('[data-testid="diagnosis-step"]').getAttribute('data-step');
  assert.match(critical, new RegExp(`^#${step} `));
  assert.equal(await page.evaluate(() => document.querySelector('.review').scrollTop), 0);
  await onFirstScreen(page, card.locator('[data-testid="diagnosis-verdict"]'), 'the verdict');
  await onFirstScreen(page, card.locator('[data-testid="diagnosis-who"]'), 'who');
  const wrong = card.locator('[data-testid="diagnosis-wrong"]').first();
  const reference = card.locator('[data-testid="diagnosis-reference"]').first();
  await onFirstScreen(page, wrong, 'the wrong content');
  await onFirstScreen(page, reference, 'the violated reference');
  // The quotes are the analysis' own words, verbatim in the steps they link to.
  const wrongText = (await wrong.locator('blockquote').textContent()).trim();
  assert.ok(wrongText.length >= 3);
  assert.match(await card.locator('[data-testid="diagnosis-who"]').textContent(), /coder/);
  assert.match(await card.locator('[data-testid="diagnosis-class"]').textContent(), /Agent failure/);
  assert.match(await card.locator('[data-testid="diagnosis-mode"]').textContent(), /reasoning/);
  const why = await card.locator('[data-testid="diagnosis-why"]').textContent();
  assert.match(why, /error instance/);
  assert.doesNotMatch(why, /score|\+\d/);
  // The class, why and brief are there too; the candidates sit beside the card.
  await onFirstScreen(page, page.locator('[data-testid="candidate"]').first(), 'the first candidate');
  await page.waitForSelector('[data-testid="diagnosis-brief"]');
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.origin });
  await page.click('[data-testid="diagnosis-copy-brief"]');
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()),
    await page.textContent('[data-testid="diagnosis-brief"]'));
  // A quote links to its step: the transcript selects it and it holds the quote.
  const refStep = await reference.getAttribute('data-step');
  await reference.locator('[data-testid="diagnosis-goto"]').click();
  const row = page.locator(`[data-testid="step"][data-step="${refStep}"][aria-selected="true"]`);
  await row.waitFor();
  const refText = (await reference.locator('blockquote').textContent()).trim();
  await page.waitForFunction(([s, q]) => document.querySelector(`[data-testid="step"][data-step="${s}"] [data-testid="step-text"]`)
    ?.textContent.includes(q), [refStep, refText.replace(/…$/, '').slice(0, 40)]);
  await screenshot(page, 'review-first-diagnosis');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a passing run says so plainly, an unknown one names candidates "if this run failed"', async () => {
  const passed = line({ type: 'run_start', run_id: 'ok-run', task: 't' })
    + line({ type: 'action', run_id: 'ok-run', agent: 'coder', tool: 'shell', command: 'make test' })
    + line({ type: 'observation', run_id: 'ok-run', exit_code: 0, output: 'all good' })
    + line({ type: 'run_end', run_id: 'ok-run', status: 'passed' });
  const { page, context } = await open(await tempFile('passed.jsonl', passed));
  await page.waitForSelector('[data-testid="diagnosis"][data-outcome="passed"]');
  assert.match(await page.textContent('[data-testid="diagnosis-verdict"]'), /^This run passed\.$/);
  assert.doesNotMatch(await page.textContent('[data-testid="diagnosis"]'), /if this run failed/);
  await context.close();

  const cc = await open(CLAUDE);
  await cc.page.waitForSelector('[data-testid="diagnosis"][data-outcome="unknown"]');
  await cc.page.waitForSelector('[data-testid="candidate"]');
  assert.match(await cc.page.textContent('[data-testid="candidates-note"]'), /if this run failed/);
  await cc.context.close();
});

test('a Claude Code session renders its tool calls as cards with their names and file paths', async () => {
  const { page, context, errors } = await open(CLAUDE);
  await rowsAt(page);
  // Every tool call of the session: a card naming the tool; Read and Edit carry their path.
  const want = [['Read', '/tmp/tmpw6sk2trg/src/math_utils.py'], ['Edit', '/tmp/tmpw6sk2trg/tests/test_math_utils.py']];
  for (const [tool, path] of want) {
    const card = page.locator('[data-testid="step"].kind-action', {
      has: page.locator('[data-testid="tool-name"]', { hasText: new RegExp(`^${tool}$`) }),
    }).filter({ has: page.locator('[data-testid="tool-target"]', { hasText: path }) });
    assert.ok(await card.count() >= 1, `a ${tool} card with ${path}`);
    // The arguments are pretty-printed JSON carrying the path.
    const args = await card.first().locator('[data-testid="tool-args"]').textContent();
    assert.match(args, new RegExp(`\\n  "file_path": "${path.replace(/\//g, '\\/')}"`));
  }
  const bash = page.locator('[data-testid="step"].kind-action', { has: page.locator('[data-testid="tool-name"]', { hasText: /^Bash$/ }) });
  assert.ok(await bash.count() >= 1);
  assert.equal(await bash.first().locator('[data-testid="tool-args"]').textContent(), 'git status');
  // Roles are coloured cards; ids sit in the quiet details line, not in the header.
  assert.ok(await page.locator('[data-testid="step"].role-user').count() >= 1);
  assert.ok(await page.locator('[data-testid="step"].role-assistant').count() >= 1);
  assert.ok(await page.locator('[data-testid="step"].role-tool').count() >= 1);
  const details = await page.locator('[data-testid="step"][data-step="1"] [data-testid="step-details"]').textContent();
  assert.match(details, /line 3/);
  assert.doesNotMatch(await page.locator('[data-testid="step"][data-step="1"] .who').textContent(), /msg_/);
  // Rows vary in height.
  const heights = await page.locator('[data-testid="step"]').evaluateAll((els) => els.map((e) => e.offsetHeight));
  assert.ok(new Set(heights).size > 3, `heights: ${heights}`);
  // The session records tokens: the timeline's usage band, one bar per column, left to right.
  const bars = await page.locator('svg [data-testid="tl-tokens"]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('x'))));
  assert.ok(bars.length >= 1);
  assert.ok(bars.every((x, i) => i === 0 || x > bars[i - 1]), `${bars}`);
  await screenshot(page, 'review-first-claude');
  assert.deepEqual(errors, []);
  await context.close();
});

test('long outputs fold behind a control; Markdown renders as structured text, never HTML', async () => {
  const long = Array.from({ length: 40 }, (_, i) => `output line ${i}`).join('\n');
  const md = '# Plan\n\n- **first** step with `code`\n- second <img src=x onerror="window.__pwned=1"> step\n\n<script>window.__pwned=2</script>\n\n[a link](https://example.invalid/x)';
  const content = line({ type: 'run_start', run_id: 'r', task: 't' })
    + line({ type: 'message', run_id: 'r', role: 'assistant', agent: 'coder', content: md })
    + line({ type: 'action', run_id: 'r', agent: 'coder', tool: 'shell', command: 'cat big.txt' })
    + line({ type: 'observation', run_id: 'r', exit_code: 0, output: long })
    + line({ type: 'run_end', run_id: 'r', status: 'failed' });
  const { page, context, requests } = await open(await tempFile('md.jsonl', content));
  await rowsAt(page);
  const msg = page.locator('[data-testid="step"][data-step="1"] [data-testid="step-text"]');
  assert.equal(await msg.locator('.md li').count(), 2);
  assert.equal(await msg.locator('.md li strong').textContent(), 'first');
  assert.equal(await msg.locator('.md li code').textContent(), 'code');
  // HTML in the message is text; the link is not a link.
  assert.equal(await page.locator('.md img, .md script, .md a').count(), 0);
  assert.match(await msg.textContent(), /<script>window.__pwned=2<\/script>/);
  assert.match(await msg.textContent(), /<img src=x onerror/);
  assert.equal(await page.evaluate(() => window.__pwned), undefined);
  // The 40-line output is folded; its control opens and closes it, the text is all there.
  const out = page.locator('[data-testid="step"][data-step="3"]');
  const body = out.locator('[data-testid="step-text"]');
  assert.match(await body.getAttribute('class'), /folded/);
  const folded = (await body.boundingBox()).height;
  assert.match(await body.textContent(), /output line 39/);
  await out.locator('[data-testid="fold-toggle"]').click();
  await page.waitForFunction(() => !document.querySelector('[data-testid="step"][data-step="3"] [data-testid="step-text"]').classList.contains('folded'));
  assert.equal(await out.locator('[data-testid="fold-toggle"]').getAttribute('aria-expanded'), 'true');
  assert.ok((await body.boundingBox()).height > folded * 2, 'opened, it is taller');
  for (const url of requests) assert.ok(url.startsWith(srv.origin + '/'), `request left the origin: ${url}`);
  await context.close();
});

test('a second opened file becomes the view', async () => {
  const { page, context } = await open(SAMPLE);
  assert.equal(await page.textContent('[data-testid="traj-id"]'), 'run-demo-7');
  const other = line({ type: 'run_start', run_id: 'second-run' })
    + line({ type: 'message', run_id: 'second-run', role: 'user', content: 'hi' })
    + line({ type: 'run_end', run_id: 'second-run', status: 'passed' });
  await page.setInputFiles('[data-testid="file-input"]', await tempFile('second.jsonl', other));
  await page.waitForFunction(() => document.querySelector('[data-testid="traj-id"]')?.textContent === 'second-run');
  await waitReady(page);
  assert.equal(await page.locator('[data-testid="queue-file"]').count(), 2);
  assert.match(await page.textContent('.queue-item[aria-current="true"]'), /second-run/);
  await context.close();
});

test('every mode works from the keyboard; the queue filters and jumps to the next unlabelled', async () => {
  // Three runs: two failed, one passed.
  const runs = ['a', 'b', 'c'].map((id, i) => line({ type: 'run_start', run_id: `run-${id}`, task: 't' })
    + line({ type: 'action', run_id: `run-${id}`, agent: 'coder', tool: 'shell', command: 'make' })
    + line({ type: 'observation', run_id: `run-${id}`, exit_code: i === 1 ? 0 : 2, output: i === 1 ? 'ok' : 'Error: make failed' })
    + line({ type: 'run_end', run_id: `run-${id}`, status: i === 1 ? 'passed' : 'failed' })).join('');
  const { page, context } = await open(await tempFile('three.jsonl', runs));
  const body = page.locator('body');
  assert.equal(await page.getAttribute('[data-testid="mode-review"]', 'aria-pressed'), 'true');
  assert.ok(!(await page.isVisible('[data-testid="annotate"]')), 'no label form while reviewing');
  assert.match(await page.textContent('[data-testid="queue-progress"]'), /0 \/ 3 labelled/);
  // Review: j/k walk steps, n/p walk candidates.
  await body.press('j');
  await page.waitForSelector('[data-testid="step"][data-step="0"][aria-selected="true"]');
  await page.waitForSelector('[data-testid="candidate"]');
  const cand = await page.getAttribute('[data-testid="candidate"]', 'data-step');
  await body.press('n');
  await page.waitForSelector(`[data-testid="step"][data-step="${cand}"][aria-selected="true"]`);
  // Annotate: `a`; the label form sits beside the transcript and pushes nothing down.
  const listTop = (await page.locator('[data-testid="step-list"]').boundingBox()).y;
  await body.press('a');
  await page.waitForSelector('[data-testid="annotate"]', { state: 'visible' });
  assert.equal(await page.getAttribute('[data-testid="mode-annotate"]', 'aria-pressed'), 'true');
  const form = await page.locator('[data-testid="annotate"]').boundingBox();
  const list = await page.locator('[data-testid="step-list"]').boundingBox();
  assert.ok(form.x >= list.x + list.width - 1, 'the form is beside the transcript');
  assert.ok(list.y <= listTop + 1, 'the transcript did not move down');
  await body.press('c');
  await page.waitForFunction((s) => document.querySelector('[data-testid="label-critical"]')?.dataset.step === s, cand);
  await page.waitForFunction(() => /1 \/ 3 labelled/.test(document.querySelector('[data-testid="queue-progress"]').textContent));
  // u: the next trajectory without a label.
  await body.press('u');
  await page.waitForFunction(() => document.querySelector('[data-testid="traj-id"]')?.textContent === 'run-b');
  await waitReady(page);
  await screenshot(page, 'review-first-annotate');
  // Queue filters: failed only hides the passed run; unlabelled only hides the labelled one.
  await page.check('[data-testid="queue-failed-only"]');
  await page.waitForFunction(() => [...document.querySelectorAll('.qid')].map((e) => e.textContent).join() === 'run-a,run-c');
  await page.check('[data-testid="queue-unlabelled-only"]');
  await page.waitForFunction(() => [...document.querySelectorAll('.qid')].map((e) => e.textContent).join() === 'run-c');
  await page.selectOption('[data-testid="queue-format"]', 'awtl');
  assert.equal(await page.locator('[data-testid="queue-item"]').count(), 1);
  await page.uncheck('[data-testid="queue-failed-only"]');
  await page.uncheck('[data-testid="queue-unlabelled-only"]');
  assert.equal(await page.locator('[data-testid="queue-item"]').count(), 3);
  // r: back to Review; the form is hidden again, the diagnosis back on top.
  await body.press('r');
  await page.waitForSelector('[data-testid="annotate"]', { state: 'hidden' });
  await page.waitForSelector('[data-testid="diagnosis"]');
  // v: Compare run-b with another run of its task (run-c); they part at the observation.
  await body.press('v');
  await page.waitForSelector('[data-testid="divergence"][aria-selected="true"]');
  assert.match(await page.textContent('[data-testid="compare-left"]'), /run-b/);
  assert.match(await page.textContent('[data-testid="compare-right"]'), /run-c/);
  assert.equal(await page.getAttribute('[data-testid="divergence"]', 'data-left-step'), '2');
  await body.press('k');
  await page.waitForSelector('.pair[data-row="1"][aria-selected="true"]');
  await body.press('d');
  await page.waitForSelector('[data-testid="divergence"][aria-selected="true"]');
  // Escape: back to Review, where j / k walk the steps again.
  await body.press('Escape');
  await page.waitForSelector('[data-testid="diagnosis"]');
  await body.press('j');
  await page.waitForSelector('[data-testid="step"][aria-selected="true"]');
  await context.close();
});

test('at 800×600, 1024×768 and 1400×900 the first screen holds the diagnosis and the start of the transcript', async () => {
  for (const [width, height] of [[800, 600], [1024, 768], [1400, 900]]) {
    const { page, context } = await open(SAMPLE, { viewport: { width, height } });
    const card = page.locator('[data-testid="diagnosis"]');
    await card.locator('[data-testid="diagnosis-step"]').waitFor();
    await page.waitForSelector('[data-testid="candidate"]');
    await page.waitForTimeout(300);
    const at = `${width}x${height}`;
    await onFirstScreen(page, card.locator('[data-testid="diagnosis-verdict"]'), `the verdict at ${at}`);
    await onFirstScreen(page, card.locator('[data-testid="diagnosis-who"]'), `who at ${at}`);
    await onFirstScreen(page, card.locator('[data-testid="diagnosis-wrong"]').first(), `the wrong content at ${at}`);
    await onFirstScreen(page, page.locator('[data-testid="candidate"]').first(), `the first candidate at ${at}`);
    // The transcript starts on the first screen, with room for its first cards.
    const list = await page.locator('[data-testid="step-list"]').boundingBox();
    const first = await page.locator('[data-testid="step"]').first().boundingBox();
    const room = height < 700 ? 100 : 150;
    assert.ok(list.y + room <= height, `the transcript starts at ${Math.round(list.y)} of ${height}`);
    assert.ok(first && first.y < height - 60, `the first card at ${JSON.stringify(first)}`);
    assert.equal(await page.evaluate(() => document.querySelector('.review').scrollTop), 0);
    // The overview keeps its key facts on the first line; the rest is one click away.
    await onFirstScreen(page, page.locator('[data-testid="critical"]'), `the critical step in the overview at ${at}`);
    await screenshot(page, `review-first-${at}`);
    await context.close();
  }
});

test('the DOM stays bounded with 100,000 steps of varying height', async () => {
  const N = 100000;
  const content = steps(N, (i) => (i % 7 === 0 ? { output: Array.from({ length: 1 + (i % 20) }, (_, k) => `row ${k} of step ${i}`).join('\n') } : {}));
  const { page, context } = await open(await tempFile('huge-varied.jsonl', content));
  const count = async () => ({
    rows: await page.locator('[data-testid="step"]').count(),
    nodes: await page.evaluate(() => document.querySelectorAll('*').length),
  });
  let c = await count();
  assert.ok(c.rows > 0 && c.rows < 60 && c.nodes < 2500, JSON.stringify(c));
  for (const frac of [0.25, 0.5, 0.999]) {
    await page.$eval('[data-testid="step-list"]', (el, f) => { el.scrollTop = el.scrollHeight * f; }, frac);
    await page.waitForFunction((want) => [...document.querySelectorAll('[data-testid="step"]')]
      .some((r) => Math.abs(Number(r.dataset.step) - want) < 2000), Math.floor(N * frac));
    await page.waitForTimeout(200);
    c = await count();
    assert.ok(c.rows < 60 && c.nodes < 2500, `at ${frac}: ${JSON.stringify(c)}`);
  }
  // A far jump lands on its card.
  await page.fill('[data-testid="search"]', 'row 3 of step 99988');
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-testid="step"][data-step="99988"][aria-selected="true"]');
  assert.ok(await page.locator('[data-testid="step"][data-step="99988"]').isVisible());
  c = await count();
  assert.ok(c.rows < 60 && c.nodes < 2500, JSON.stringify(c));
  await context.close();
});
