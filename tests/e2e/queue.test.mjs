// The work queue with many trajectories: a file of 10,000 runs keeps the DOM small (the queue
// is virtualised), scrolling the queue shows the rows of that position, and picking one far
// down opens it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, newPage, screenshot, waitReady } from './harness.mjs';
import { tempFile, line } from './gen.mjs';

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

test('a file of a few trajectories lists them whole, without a scroll box', async () => {
  const path = await tempFile('runs3.jsonl', manyRuns(3, 2));
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', path);
  await waitReady(page);
  assert.equal(await page.locator('[data-testid="queue-item"]').count(), 3);
  assert.equal(await page.locator('[data-testid="queue-scroller"]').count(), 0);
  await context.close();
});
