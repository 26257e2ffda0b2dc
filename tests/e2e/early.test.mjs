// A file of many runs is readable before it is read whole: `ready` (the first run on screen)
// comes while the worker still reads, with the read's progress on screen and the queue filling
// in; once read, the whole file's summary replaces the early one and the reviewer's place stays.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serveDist, launch, newPage, screenshot, waitReady, whileReading } from './harness.mjs';
import { manyRunsFile } from './gen.mjs';

let srv, browser, runs;

before(async () => {
  srv = await serveDist();
  browser = await launch();
  runs = await manyRunsFile(60);
});
after(async () => { await browser?.close(); await srv?.close(); });

test('the first run is readable while the rest is read; the place stays once it is read', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', runs.path);
  // Ready while read: the first run open, a step on screen, the read's progress beside it.
  const early = await whileReading(page, {
    id: '[data-testid="traj-id"]',
    early: '[data-testid="progress-early"]',
    analysis: '[data-testid="analysis-progress"]',
  });
  assert.equal(early.id, 'run-0');
  assert.match(early.early, /read so far/);
  assert.match(early.analysis, /reading… \d+ %/);
  await screenshot(page, 'load-early-top');
  // The reviewer picks a step while the file is read.
  await page.locator('[data-testid="step"][data-step="3"]').click();
  await page.waitForSelector('[data-testid="step"][data-step="3"][aria-selected="true"]');
  await screenshot(page, 'load-early');
  // Read whole: every run in the queue, the lines all counted, the same run and step.
  await waitReady(page, 180000);
  assert.equal(await page.locator('.app[data-reading]').count(), 0);
  assert.equal(await page.locator('[data-testid="progress"]').count(), 0);
  assert.equal(await page.textContent('[data-testid="traj-id"]'), 'run-0');
  await page.waitForSelector('[data-testid="step"][data-step="3"][aria-selected="true"]');
  const lines = await page.textContent('[data-testid="lines"]');
  assert.ok(lines.startsWith(String(runs.lines)), `${lines} vs ${runs.lines}`);
  const count = await page.getAttribute('[data-testid="queue-scroller"]', 'aria-label');
  assert.equal(count, `${runs.runs} trajectories`);
  assert.deepEqual(errors, []);
  await context.close();
});
