// Reviewing: overview, quarantine panel and its export, grain switching, filters, candidates,
// search across a virtualised 100,000-step list, keyboard, deep links, brief and cases exports.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady, rowsAt, ROOT } from './harness.mjs';
import { tempFile, line, steps } from './gen.mjs';

const SAMPLE = join(ROOT, 'web', 'samples', 'sample.awtl.jsonl');
let srv, browser;

before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

async function open(path, opts) {
  const p = await newPage(browser, opts);
  await p.page.goto(srv.url);
  await p.page.setInputFiles('[data-testid="file-input"]', path);
  await waitReady(p.page);
  return p;
}

async function download(page, selector) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  return { name: dl.suggestedFilename(), text: await readFile(await dl.path(), 'utf8') };
}

test('quarantine panel lists line, offset, reason, truncated tail and raw text; its export matches', async () => {
  const good = line({ type: 'message', role: 'user', content: 'hello' });
  const bytes = Buffer.concat([
    Buffer.from(good),
    Buffer.from('{"type":"message","content":"cut\n'), // line 2: broken JSON mid-file
    Buffer.from(good),
    Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d, 0x0a]), // line 4: invalid UTF-8
    Buffer.from(good),
    Buffer.from('{"type":"observation","output":"interrup'), // line 6: truncated tail
  ]);
  const path = await tempFile('corrupt.jsonl', bytes);
  const { page, context } = await open(path);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '3');
  const shown = await page.locator('[data-testid="quarantine-entry"]').evaluateAll((els) => els.map((e) => ({
    line: Number(e.dataset.line), offset: Number(e.dataset.offset),
    reason: e.querySelector('[data-testid="quarantine-reason"]').textContent,
    raw: e.querySelector('[data-testid="quarantine-raw"]').textContent,
    tail: !!e.querySelector('[data-testid="truncated-tail"]'),
  })));
  assert.deepEqual(shown.map((s) => s.line), [2, 4, 6]);
  assert.deepEqual(shown.map((s) => s.tail), [false, false, true]);
  assert.equal(shown[0].offset, good.length);
  assert.ok(shown[2].raw.includes('interrup'));
  await page.locator('[data-testid="quarantine"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'review-quarantine');

  const { name, text } = await download(page, '[data-testid="export-quarantine"]');
  assert.equal(name, 'quarantine.jsonl');
  const records = text.trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(records.map((r) => r.line), shown.map((s) => s.line));
  assert.deepEqual(records.map((r) => r.reason), shown.map((s) => s.reason));
  assert.deepEqual(records.map((r) => r.offset), shown.map((s) => s.offset));
  assert.deepEqual(records.map((r) => r.truncated_tail), shown.map((s) => s.tail));
  // The exact bytes survive the export, invalid UTF-8 included.
  assert.deepEqual([...Buffer.from(records[1].raw_base64, 'base64')], [0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
  await context.close();
});

test('grain switch keeps every step text within 3000 / 1200 / 600 characters', async () => {
  const long = Array.from({ length: 200 }, (_, i) => `line ${i} of a long tool output ${'-'.repeat(30)}`).join('\n');
  const content = line({ type: 'message', role: 'user', content: 'short task' })
    + line({ type: 'observation', exit_code: 1, output: long })
    + line({ type: 'message', role: 'assistant', agent: 'coder', content: 'y'.repeat(2000) });
  const path = await tempFile('long.jsonl', content);
  const { page, context } = await open(path);
  const limits = { high: 3000, medium: 1200, low: 600 };
  for (const g of ['high', 'medium', 'low']) {
    await page.click(`[data-testid="grain-${g}"]`);
    await rowsAt(page, g);
    const lens = await page.locator('[data-testid="step-text"]').evaluateAll((els) => els.map((e) => e.textContent.length));
    for (const n of lens) assert.ok(n <= limits[g], `${g}: ${n} > ${limits[g]}`);
    // The long step is cut to the bound, visibly, not dropped.
    assert.ok(lens[1] > limits[g] / 2, `${g}: the long step kept ${lens[1]} characters`);
    const text = await page.locator('[data-testid="step-text"]').nth(1).textContent();
    assert.match(text, /elided/);
    if (g === 'high') await screenshot(page, 'review-grain-high');
  }
  // Keyboard: 1 goes back to high.
  await page.keyboard.press('1');
  await rowsAt(page, 'high');
  await context.close();
});

test('candidates: listed with evidence, selecting one scrolls to its step, n/p cycle, evidence highlighted', async () => {
  const { page, context } = await open(SAMPLE);
  const cands = page.locator('[data-testid="candidate"]');
  const n = await cands.count();
  assert.ok(n >= 1, 'the failed sample run has candidate critical steps');
  // Every candidate says why it was ranked (the scoring model's features in words).
  assert.equal(await page.locator('[data-testid="candidate-why"]').count(), n);
  const candSteps = await cands.evaluateAll((els) => els.map((e) => e.dataset.step));
  await cands.nth(n - 1).click();
  const last = candSteps[n - 1];
  await page.waitForSelector(`[data-testid="step"][data-step="${last}"][aria-selected="true"]`);
  const lineAttr = await cands.nth(n - 1).getAttribute('data-line');
  assert.equal(await page.getAttribute(`[data-testid="step"][data-step="${last}"]`, 'data-line'), lineAttr);
  await page.locator('body').press('n');
  await page.waitForSelector(`[data-testid="step"][data-step="${candSteps[0]}"][aria-selected="true"]`);
  if (n > 1) {
    await page.locator('body').press('n');
    await page.waitForSelector(`[data-testid="step"][data-step="${candSteps[1]}"][aria-selected="true"]`);
    await page.locator('body').press('p');
    await page.waitForSelector(`[data-testid="step"][data-step="${candSteps[0]}"][aria-selected="true"]`);
  }
  // The evidence quotes are marked inside the step text, as text.
  await page.waitForSelector('mark.evidence');
  const marked = await page.locator('mark.evidence').first().textContent();
  assert.ok(marked.length >= 3);
  assert.equal(await page.locator('svg [data-testid="tl-candidate"]').count(), n);
  // One error mark per flagged step (12 steps: each its own column), left to right.
  const errs = await page.locator('svg [data-testid="tl-error"]').evaluateAll((els) => els.map((e) => Number(e.getAttribute('x'))));
  const flagged = Number((await page.textContent('[data-testid="step-count"]')).match(/\((\d+) flagged/)[1]);
  assert.ok(flagged >= 1);
  assert.equal(errs.length, flagged);
  assert.ok(errs.every((x, i) => i === 0 || x > errs[i - 1]), `${errs}`);
  await screenshot(page, 'review-candidates');
  await context.close();
});

test('search next/previous works across a virtualised 100,000-step list that keeps the DOM small', async () => {
  const N = 100000;
  const content = steps(N, (i) => (i === 73421 || i === 99001 || i === 12 ? { output: `found the NEEDLE-x here (${i})` } : {}));
  const path = await tempFile('huge.jsonl', content);
  const { page, context } = await open(path);
  assert.equal(await page.textContent('[data-testid="step-count"]').then((t) => t.split(' ')[0]), String(N));
  const rows = await page.locator('[data-testid="step"]').count();
  assert.ok(rows > 0 && rows < 60, `rows in the DOM: ${rows}`);
  const nodes = await page.evaluate(() => document.querySelectorAll('*').length);
  assert.ok(nodes < 2000, `DOM nodes: ${nodes}`);

  await page.fill('[data-testid="search"]', 'needle-x');
  await page.waitForFunction(() => document.querySelector('[data-testid="search-count"]').textContent.includes('3'));
  for (const want of [12, 73421, 99001, 12]) {
    await page.click('[data-testid="search-next"]');
    await page.waitForSelector(`[data-testid="step"][data-step="${want}"][aria-selected="true"] mark.hit`);
  }
  await page.click('[data-testid="search-prev"]');
  await page.waitForSelector(`[data-testid="step"][data-step="99001"][aria-selected="true"]`);
  await page.click('[data-testid="search-prev"]');
  const row = page.locator('[data-testid="step"][data-step="73421"][aria-selected="true"]');
  await row.waitFor();
  assert.match(await row.locator('mark.hit').textContent(), /needle-x/i);
  assert.ok(await row.isVisible(), 'the hit is scrolled into view');
  // Scrolling far keeps rendering the rows under the viewport, still few of them.
  await page.$eval('[data-testid="step-list"]', (el) => { el.scrollTop = el.scrollHeight / 2; });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="step"]')]
    .some((r) => Math.abs(Number(r.dataset.step) - 50000) < 100));
  assert.ok(await page.locator('[data-testid="step"]').count() < 60);
  await screenshot(page, 'review-100k-search');
  await context.close();
});

test('filters: errors only, by agent and by role', async () => {
  const content = steps(40, (i) => (i % 10 === 0 ? { exit_code: 2, output: `boom ${i}` } : {}));
  const path = await tempFile('filters.jsonl', content);
  const { page, context } = await open(path);
  await page.check('[data-testid="filter-errors"]');
  await page.waitForFunction(() => {
    const r = [...document.querySelectorAll('[data-testid="step"]')];
    return r.length > 0 && r.every((e) => e.classList.contains('error'));
  });
  await page.uncheck('[data-testid="filter-errors"]');
  await page.selectOption('[data-testid="filter-agent"]', { label: 'tester' });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="step"] .actor')].every((a) => a.textContent === 'tester')
    && document.querySelectorAll('[data-testid="step"]').length > 0);
  const all = await page.locator('[data-testid="step"] .actor').allTextContents();
  assert.ok(all.length > 0 && all.every((a) => a === 'tester'));
  await page.selectOption('[data-testid="filter-agent"]', { label: 'all agents' });
  await page.selectOption('[data-testid="filter-role"]', { label: 'tool' });
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="step"] .role')].every((a) => a.textContent === 'tool'));
  await context.close();
});

test('keyboard: j/k and the arrows, 1/2/3, /, ? help; the URL hash restores trajectory, step and grain after a reload', async () => {
  const { page, context } = await open(SAMPLE);
  const body = page.locator('body');
  for (const k of ['j', 'j', 'j', 'j', 'k']) await body.press(k);
  await page.waitForSelector('[data-testid="step"][data-step="2"][aria-selected="true"]');
  // The arrows move the same way.
  for (const k of ['ArrowDown', 'ArrowDown', 'ArrowUp']) await body.press(k);
  await page.waitForSelector('[data-testid="step"][data-step="3"][aria-selected="true"]');
  await body.press('k');
  await page.waitForSelector('[data-testid="step"][data-step="2"][aria-selected="true"]');
  await body.press('3');
  await rowsAt(page, 'low');
  await page.waitForFunction(() => location.hash === '#f=0&t=0&s=2&g=low');
  assert.ok(!(await page.evaluate(() => location.hash)).includes('contract'), 'the hash carries no content');
  await body.press('?');
  await page.waitForSelector('[data-testid="help"]');
  await screenshot(page, 'review-help');
  await page.keyboard.press('Escape');
  await page.waitForSelector('[data-testid="help"]', { state: 'detached' });
  await body.press('/');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'search');
  await page.keyboard.press('Escape');
  // c marks the selected step critical in the annotate panel; the queue shows the label.
  await body.press('c');
  await page.waitForFunction(() => /\b2\b/.test(document.querySelector('[data-testid="label-critical"]')?.textContent || ''));
  await page.waitForFunction(() => document.querySelector('[data-testid="queue-label"]')?.textContent === 'label: #2');

  await page.reload();
  await page.setInputFiles('[data-testid="file-input"]', SAMPLE);
  await waitReady(page);
  await page.waitForSelector('[data-testid="step"][data-step="2"][aria-selected="true"]');
  await rowsAt(page, 'low');
  assert.equal(await page.getAttribute('[data-testid="grain-low"]', 'aria-pressed'), 'true');
  await context.close();
});

test('brief: shown, copied and downloaded as Markdown; cases export writes the valid ones and shows errors', async () => {
  const { page, context } = await open(SAMPLE);
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: srv.origin });
  const brief = page.locator('[data-testid="brief"]');
  await brief.waitFor();
  await page.waitForSelector('[data-testid="brief-pending"]', { state: 'detached' });
  const hasBrief = await page.locator('[data-testid="brief-text"]').count();
  if (hasBrief) {
    const shown = await page.textContent('[data-testid="brief-text"]');
    assert.match(shown, /Failure Prevention Brief/);
    const { name, text } = await download(page, '[data-testid="export-brief"]');
    assert.equal(name, 'brief.md');
    assert.equal(text, shown);
    await page.click('[data-testid="copy-brief"]');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), shown);
  } else {
    assert.match(await brief.textContent(), /no-op/);
  }
  const cases = page.locator('[data-testid="case"]');
  const valid = await page.locator('[data-testid="case"][data-valid="true"]').count();
  const invalid = await page.locator('[data-testid="case"][data-valid="false"]').count();
  assert.equal(valid + invalid, await cases.count());
  for (let i = 0; i < invalid; i++) {
    assert.ok(await page.locator('[data-testid="case"][data-valid="false"]').nth(i).locator('[data-testid="case-error"]').count() > 0);
  }
  if (valid > 0) {
    const { name, text } = await download(page, '[data-testid="export-cases"]');
    assert.equal(name, 'cases.jsonl');
    const lines = text.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(lines.length, valid);
    for (const c of lines) {
      assert.equal(c.turn_id, c.failure_turn_id);
      assert.ok(c.artifact_refs.length > 0 && c.evidence_refs.length > 0 && c.applicability.length > 0);
    }
  } else if (await cases.count() > 0) {
    assert.ok(await page.locator('[data-testid="export-cases"]').isDisabled());
  }
  await brief.scrollIntoViewIfNeeded();
  await screenshot(page, 'review-brief');
  await context.close();
});

test('dark theme follows the system setting', async () => {
  const { page, context } = await open(SAMPLE, { colorScheme: 'dark' });
  const bg = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  assert.equal(bg, 'rgb(20, 23, 28)');
  await screenshot(page, 'review-dark');
  await context.close();
});
