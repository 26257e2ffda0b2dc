// Not in the gate (it loads 10,000 runs: a minute or more on a loaded machine). Run:
// node --test bench/app/queue-10k.test.mjs after the web build.
// The work queue with many trajectories: a file of 10,000 runs keeps the DOM small (the queue
// is virtualised), scrolling the queue shows the rows of that position, and picking one far
// down opens it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, newPage, screenshot, waitReady } from '../../tests/e2e/harness.mjs';
import { tempFile, line } from '../../tests/e2e/gen.mjs';

let srv, browser;
before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

/** `runs` AWTL runs of `each` steps (run_start, actions and observations, run_end). */
function manyRuns(runs, each) {
  const out = [];
  for (let r = 0; r < runs; r++) {
    const run_id = `run-${String(r).padStart(5, '0')}`;
    out.push(line({ type: 'run_start', run_id, task: `task ${r}` }));
    for (let i = 0; i < each; i++) {
      out.push(line(i % 2
        ? { type: 'observation', run_id, exit_code: r % 7 === 0 && i === each - 1 ? 1 : 0, output: `out ${r}.${i}` }
        : { type: 'action', run_id, agent: 'coder', tool: 'shell', command: `make step-${i}` }));
    }
    out.push(line({ type: 'run_end', run_id, status: r % 7 === 0 ? 'failed' : 'passed' }));
  }
  return out.join('');
}

const nodes = (page) => page.evaluate(() => document.querySelectorAll('*').length);

test('a file of 10,000 trajectories keeps the DOM at or under 5,000 nodes while the queue scrolls', async () => {
  const N = 10000;
  const path = await tempFile('runs10k.jsonl', manyRuns(N, 3));
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', path);
  await waitReady(page, 400000);
  await page.waitForSelector('[data-testid="queue-scroller"] [data-testid="queue-item"]', { timeout: 400000 });
  const atTop = await nodes(page);
  assert.ok(atTop <= 5000, `DOM nodes with ${N} trajectories: ${atTop}`);
  const items = await page.locator('[data-testid="queue-item"]').count();
  assert.ok(items > 0 && items < 100, `queue rows in the DOM: ${items}`);
  assert.equal(await page.getAttribute('[data-testid="queue-item"]', 'aria-setsize'), String(N));

  // Scroll to the middle and to the end: the rows there are rendered, the DOM stays small.
  for (const frac of [0.5, 1]) {
    await page.$eval('[data-testid="queue-scroller"]', (el, f) => { el.scrollTop = (el.scrollHeight - el.clientHeight) * f; }, frac);
    const want = frac === 1 ? N - 1 : Math.floor(N / 2);
    await page.waitForFunction((w) => [...document.querySelectorAll('[data-testid="queue-item"]')]
      .some((el) => Math.abs(Number(el.dataset.traj) - w) < 20), want);
    const n = await nodes(page);
    assert.ok(n <= 5000, `DOM nodes after scrolling to ${frac}: ${n}`);
  }
  const last = page.locator(`[data-testid="queue-item"][data-traj="${N - 1}"]`);
  assert.match(await last.textContent(), /run-09999/);
  // The row on screen is the one clicked: it opens that trajectory.
  await last.locator('button').click();
  await page.waitForSelector(`[data-testid="queue-item"][data-traj="${N - 1}"] button[aria-current="true"]`);
  await page.waitForSelector('[data-testid="step"]');
  assert.equal(await page.textContent('[data-testid="step-count"]').then((t) => t.split(' ')[0]), '5');
  assert.ok(await nodes(page) <= 5000);

  // Scrolling frames stay short (reported, not asserted: the machine is shared).
  const frames = await page.$eval('[data-testid="queue-scroller"]', async (el) => {
    el.scrollTop = 0;
    const ms = [];
    let t = performance.now();
    for (let i = 0; i < 100; i++) {
      el.scrollTop += 300;
      await new Promise((ok) => requestAnimationFrame(ok));
      const now = performance.now(); ms.push(now - t); t = now;
    }
    ms.sort((a, b) => a - b);
    return { median: ms[50], p95: ms[95] };
  });
  console.log(`queue scroll frames with ${N} trajectories: median ${frames.median.toFixed(1)} ms, p95 ${frames.p95.toFixed(1)} ms`);
  await screenshot(page, 'queue-10k');
  await context.close();
});

