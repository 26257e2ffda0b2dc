// The compare view: two runs side by side, aligned by the core's diff (docs/diff.md). Two
// attempts in one file and the same two runs in two files share a prefix; the first divergence
// is marked on the right pair of steps and scrolled into view; both outcomes and critical steps
// are at the top; the whole view works from the keyboard (v, j/k, n/p, d, s, Esc), its
// selection survives in the URL hash (never content); and two 100,000-step runs keep the DOM
// small.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady } from './harness.mjs';
import { tempFile, scratchDir, line, attempt, ATTEMPT_SHARED as SHARED } from './gen.mjs';

let srv, browser;
before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

async function open(paths, opts = {}) {
  const p = await newPage(browser, { viewport: { width: 1400, height: 900 }, ...opts });
  await p.page.goto(srv.url + (opts.hash || ''));
  for (const path of [].concat(paths)) {
    const n = await p.page.locator('[data-testid="queue-file"]').count();
    await p.page.setInputFiles('[data-testid="file-input"]', path);
    await p.page.waitForFunction((n) => document.querySelectorAll('[data-testid="queue-file"]').length > n, n);
    await waitReady(p.page);
  }
  return p;
}

/** Asserts the element's box lies wholly inside its scroll box and the viewport. */
async function inView(page, locator, what) {
  await locator.waitFor();
  const box = await locator.boundingBox();
  const list = await page.locator('[data-testid="compare-list"]').boundingBox();
  const vp = page.viewportSize();
  assert.ok(box && box.y >= list.y - 1 && box.y + box.height <= list.y + list.height + 1
    && box.y + box.height <= vp.height, `${what} in view: ${JSON.stringify({ box, list })}`);
}

async function divergence(page) {
  const d = page.locator('[data-testid="divergence"]');
  await d.waitFor();
  return { left: await d.getAttribute('data-left-step'), right: await d.getAttribute('data-right-step'), row: await d.getAttribute('data-row') };
}

test('two attempts in one file: the first divergence is marked on the right pair and in view; outcomes and critical steps at the top', async () => {
  const file = await tempFile('attempts.jsonl', attempt('attempt-pass', true) + attempt('attempt-fail', false));
  const { page, context, errors, requests } = await open(file);
  // The queue's compare button on the second run: the selected (first) run is the left one.
  await page.locator('[data-testid="queue-item"][data-traj="1"] [data-testid="queue-compare"]').click();
  const view = page.locator('[data-testid="compare"]');
  await view.waitFor();
  assert.equal(await page.getAttribute('[data-testid="mode-compare"]', 'aria-pressed'), 'true');
  const d = await divergence(page);
  assert.deepEqual([d.left, d.right], [String(SHARED), String(SHARED)]);
  await inView(page, page.locator('[data-testid="divergence"]'), 'the divergence');
  // Selected on arrival; the rows before it are equal, the pair itself differs.
  assert.equal(await page.getAttribute('[data-testid="divergence"]', 'aria-selected'), 'true');
  const kinds = await page.locator('.pair').evaluateAll((els) => els.map((e) => e.dataset.kind));
  assert.deepEqual(kinds.slice(0, SHARED), Array(SHARED).fill('equal'));
  assert.notEqual(kinds[SHARED], 'equal');
  // Steps only one run has are shaded: a one-sided row has an empty, hatched cell.
  const onlyRight = page.locator('.pair[data-kind="right_only"]').first();
  assert.ok(await onlyRight.count(), 'the failing attempt has a step the passing one lacks');
  assert.equal(await onlyRight.locator('.cell.none[data-side="left"]').count(), 1);
  const bg = await onlyRight.locator('.cell[data-side="right"]').evaluate((e) => getComputedStyle(e).backgroundColor);
  const plain = await page.locator('.pair[data-kind="equal"] .cell[data-side="right"]').first().evaluate((e) => getComputedStyle(e).backgroundColor);
  assert.notEqual(bg, plain, 'a one-sided step is shaded');
  // Both outcomes and both critical steps at the top.
  const left = page.locator('[data-testid="compare-left"]');
  const right = page.locator('[data-testid="compare-right"]');
  assert.equal(await left.getAttribute('data-outcome'), 'passed');
  assert.equal(await right.getAttribute('data-outcome'), 'failed');
  assert.equal(await page.textContent('[data-testid="compare-outcome-left"]'), 'passed');
  assert.equal(await page.textContent('[data-testid="compare-outcome-right"]'), 'failed');
  assert.equal(await page.textContent('[data-testid="compare-critical-left"]'), 'no critical step');
  const crit = await right.getAttribute('data-critical');
  assert.match(crit, /^\d+$/, 'the failed run has a critical step');
  assert.equal(await page.textContent('[data-testid="compare-critical-right"]'), `critical step #${crit}`);
  // The critical step's button goes to its row, which carries the mark.
  await page.click('[data-testid="compare-critical-right"]');
  const critRow = page.locator(`.pair[data-right-step="${crit}"]`);
  await page.waitForSelector(`.pair[data-right-step="${crit}"][aria-selected="true"]`);
  assert.equal(await critRow.locator('[data-testid="critical-right"]').count(), 1);
  // The jump button brings the divergence back.
  await page.click('[data-testid="jump-divergence"]');
  await page.waitForSelector('[data-testid="divergence"][aria-selected="true"]');
  // The selected row's steps, whole, below the list: text, never HTML.
  await page.waitForFunction(() => document.querySelector('[data-testid="compare-detail-right"]')?.dataset.loaded === 'true');
  assert.match(await page.textContent('[data-testid="compare-detail-left"]'), /sed -i/);
  assert.match(await page.textContent('[data-testid="compare-detail-right"]'), /remove it/);
  assert.match(await page.textContent('[data-testid="compare-summary"]'), new RegExp(`First divergence at row ${SHARED + 1}: left #${SHARED} · right #${SHARED}`));
  // The hash keeps the selection (positions only, never content).
  const hash = await page.evaluate(() => location.hash);
  assert.match(hash, /m=compare&vs=0\.1$/);
  assert.doesNotMatch(hash, /pytest|math/);
  for (const url of requests) assert.ok(url.startsWith(srv.origin + '/'), `request left the origin: ${url}`);
  await screenshot(page, 'compare-attempts');
  assert.deepEqual(errors, []);
  await context.close();
});

test('two files: the same runs compared across files; a deep link restores the comparison', async () => {
  const a = await tempFile('pass.jsonl', attempt('attempt-pass', true));
  const b = await tempFile('fail.jsonl', attempt('attempt-fail', false));
  const { page, context, errors } = await open([a, b]);
  // The second file is the view; Compare (the mode button) picks the other file's run.
  await page.click('[data-testid="mode-compare"]');
  const d = await divergence(page);
  assert.deepEqual([d.left, d.right], [String(SHARED), String(SHARED)]);
  assert.equal(await page.getAttribute('[data-testid="compare-left"]', 'data-outcome'), 'failed');
  assert.equal(await page.getAttribute('[data-testid="compare-right"]', 'data-outcome'), 'passed');
  assert.match(await page.textContent('[data-testid="compare-left"]'), /fail\.jsonl/);
  assert.match(await page.textContent('[data-testid="compare-right"]'), /pass\.jsonl/);
  // The pickers: the right one lists both files' runs; picking the same run as the left agrees.
  await page.selectOption('[data-testid="compare-pick-right"]', { label: 'attempt-fail · 12 steps · failed' });
  await page.waitForFunction(() => /agree on every step/.test(document.querySelector('[data-testid="compare-summary"]')?.textContent || ''));
  assert.equal(await page.locator('[data-testid="divergence"]').count(), 0);
  assert.ok(await page.locator('[data-testid="jump-divergence"]').isDisabled());
  assert.deepEqual(errors, []);
  await context.close();

  // A deep link: file 1's run on the left, file 0's on the right, reopened in that order.
  const link = await open([a, b], { hash: '#f=1&t=0&m=compare&vs=0.0' });
  const again = await divergence(link.page);
  assert.deepEqual([again.left, again.right], [String(SHARED), String(SHARED)]);
  assert.equal(await link.page.getAttribute('[data-testid="compare-left"]', 'data-outcome'), 'failed');
  assert.equal(await link.page.getAttribute('[data-testid="compare-right"]', 'data-outcome'), 'passed');
  await link.context.close();
});

test('the compare view works from the keyboard alone', async () => {
  const file = await tempFile('attempts.jsonl', attempt('attempt-pass', true) + attempt('attempt-fail', false));
  const { page, context, errors } = await open(file);
  const body = page.locator('body');
  // v: Compare, with the other attempt of the file picked; the divergence selected.
  await body.press('v');
  await page.waitForSelector('[data-testid="divergence"][aria-selected="true"]');
  const sel = () => page.getAttribute('.pair[aria-selected="true"]', 'data-row');
  const div = Number(await sel());
  assert.equal(div, SHARED);
  // j / k: the next / previous row.
  await body.press('j');
  await page.waitForFunction((r) => document.querySelector('.pair[aria-selected="true"]')?.dataset.row === String(r), div + 1);
  await body.press('k');
  await body.press('k');
  await page.waitForFunction((r) => document.querySelector('.pair[aria-selected="true"]')?.dataset.row === String(r), div - 1);
  // n: the next difference (the divergence itself), n again: the one after; p: back.
  await body.press('n');
  await page.waitForFunction((r) => document.querySelector('.pair[aria-selected="true"]')?.dataset.row === String(r), div);
  await body.press('n');
  await page.waitForFunction((r) => Number(document.querySelector('.pair[aria-selected="true"]')?.dataset.row) > r, div);
  assert.notEqual(await page.getAttribute('.pair[aria-selected="true"]', 'data-kind'), 'equal');
  await body.press('p');
  await page.waitForFunction((r) => document.querySelector('.pair[aria-selected="true"]')?.dataset.row === String(r), div);
  // Far away, then d: back at the first divergence.
  for (let i = 0; i < 4; i++) await body.press('j');
  await body.press('d');
  await page.waitForSelector('[data-testid="divergence"][aria-selected="true"]');
  // s: the runs swap sides (the failed attempt is now the left one, and the selection).
  await body.press('s');
  await page.waitForFunction(() => document.querySelector('[data-testid="compare-left"]')?.dataset.outcome === 'failed'
    && document.querySelector('[data-testid="compare-right"]')?.dataset.outcome === 'passed');
  await page.waitForSelector('[data-testid="divergence"]');
  // The pickers are reachable with Tab and change with the arrow keys.
  await page.focus('[data-testid="compare-pick-right"]');
  assert.equal(await page.evaluate(() => document.activeElement?.dataset.testid), 'compare-pick-right');
  // Escape leaves the picker first, then Compare: back to Review, the diagnosis on top.
  await body.press('Escape');
  assert.notEqual(await page.evaluate(() => document.activeElement?.dataset.testid), 'compare-pick-right');
  assert.ok(await page.isVisible('[data-testid="compare"]'), 'still comparing');
  await body.press('Escape');
  await page.waitForSelector('[data-testid="compare"]', { state: 'detached' });
  await page.waitForSelector('[data-testid="diagnosis"]');
  assert.equal(await page.getAttribute('[data-testid="mode-review"]', 'aria-pressed'), 'true');
  // From Annotate too: v compares, Escape returns to Annotate.
  await body.press('a');
  await page.waitForSelector('[data-testid="annotate"]', { state: 'visible' });
  await body.press('v');
  await page.waitForSelector('[data-testid="compare"]');
  await body.press('Escape');
  await page.waitForSelector('[data-testid="annotate"]', { state: 'visible' });
  assert.deepEqual(errors, []);
  await context.close();
});

/** Two runs of `n` steps in one file, the same up to step `at`, then different commands. */
async function twoBigRuns(n, at) {
  const dir = await scratchDir('cmp-');
  const path = join(dir, 'two-big.jsonl');
  const ws = createWriteStream(path);
  for (const id of ['big-a', 'big-b']) {
    let chunk = [line({ type: 'run_start', run_id: id, task: 'generated task' })];
    for (let i = 1; i < n - 1; i++) {
      const tag = i >= at && id === 'big-b' ? 'other' : 'same';
      chunk.push(line(i % 2
        ? { type: 'action', run_id: id, agent: 'coder', tool: 'shell', command: `make ${tag}-${i % 1000 < 500 ? 'build' : 'test'} part${(i % 7) ? 'x' : 'y'}` }
        : { type: 'observation', run_id: id, exit_code: 0, output: `${tag} output ${i % 3 ? 'ok' : 'done'}` }));
      if (chunk.length === 5000) {
        if (!ws.write(chunk.join(''))) await new Promise((ok) => ws.once('drain', ok));
        chunk = [];
      }
    }
    chunk.push(line({ type: 'run_end', run_id: id, status: 'failed' }));
    ws.write(chunk.join(''));
  }
  await new Promise((ok) => ws.end(ok));
  return { path, dir };
}

test('two 100,000-step runs: the divergence is found far down and the DOM stays bounded', async () => {
  const N = 100000, AT = 61234;
  const { path, dir } = await twoBigRuns(N, AT);
  try {
    const { page, context, errors } = await open(path);
    await page.locator('body').press('v');
    const d = await divergence(page);
    // Step AT is an observation in run b ("other output"); the rows before it are equal.
    assert.deepEqual([d.left, d.right], [String(AT), String(AT)]);
    assert.equal(d.row, String(AT));
    await inView(page, page.locator('[data-testid="divergence"]'), 'the far divergence');
    const count = async () => ({
      rows: await page.locator('.pair').count(),
      nodes: await page.evaluate(() => document.querySelectorAll('*').length),
    });
    let c = await count();
    assert.ok(c.rows > 0 && c.rows < 60 && c.nodes < 2500, JSON.stringify(c));
    // Every step of both runs in one row each: the shared prefix, then the changed pairs.
    assert.equal(await page.getAttribute('[data-testid="compare-list"]', 'aria-label'), `${N} aligned rows`);
    for (const frac of [0, 0.3, 0.999]) {
      await page.$eval('[data-testid="compare-list"]', (el, f) => { el.scrollTop = el.scrollHeight * f; }, frac);
      await page.waitForFunction((f) => {
        const rows = [...document.querySelectorAll('.pair')].map((r) => Number(r.dataset.row));
        const el = document.querySelector('[data-testid="compare-list"]');
        const want = Math.floor(el.scrollTop / 52);
        return rows.some((r) => Math.abs(r - want) < 3);
      }, frac);
      c = await count();
      assert.ok(c.rows < 60 && c.nodes < 2500, `at ${frac}: ${JSON.stringify(c)}`);
    }
    // The texts of the rows on screen arrive (both columns scroll together: one list).
    await page.waitForFunction(() => [...document.querySelectorAll('.pair .cell[data-side="left"] .line')]
      .some((e) => /^shell make same-/.test(e.textContent)));
    const rows = await page.locator('.pair').evaluateAll((els) => els.map((e) => [e.dataset.leftStep, e.dataset.rightStep]));
    assert.ok(rows.length > 0 && rows.every(([l, r]) => l || r));
    // d from far away lands on the divergence again, in view.
    await page.locator('[data-testid="compare-list"]').focus();
    await page.keyboard.press('d');
    await page.waitForSelector('[data-testid="divergence"][aria-selected="true"]');
    await inView(page, page.locator('[data-testid="divergence"]'), 'the divergence after d');
    c = await count();
    assert.ok(c.rows < 60 && c.nodes < 2500, JSON.stringify(c));
    await screenshot(page, 'compare-big');
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
