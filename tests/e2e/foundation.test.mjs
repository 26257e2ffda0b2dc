// The thin slice end to end: the built page, served from a sub-path, takes a trace through the
// file input and by drag and drop, shows its events and its quarantine count, and makes no
// request outside its own origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady, ROOT } from './harness.mjs';

const SAMPLE = join(ROOT, 'web', 'samples', 'sample.awtl.jsonl');
let srv, browser;

before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

test('a trace picked with the file input shows its steps and quarantine count', async () => {
  const { page, requests, errors, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('.app[data-state="empty"]');
  await page.setInputFiles('[data-testid="file-input"]', SAMPLE);
  await waitReady(page);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '1');
  assert.equal(await page.locator('[data-testid="step"]').count(), 12);
  const lines = await page.locator('[data-testid="step"]').evaluateAll((els) => els.map((e) => e.dataset.line));
  assert.ok(!lines.includes('10'), 'the quarantined line 10 is not a step');
  const shot = await screenshot(page, 'foundation-loaded');
  assert.ok(shot.endsWith('.png'));
  for (const url of requests) assert.ok(url.startsWith(srv.origin + '/'), `request left the origin: ${url}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a trace dropped on the page loads the same way', async () => {
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('.app[data-state="empty"]');
  const text = await readFile(SAMPLE, 'utf8');
  await page.evaluate((content) => {
    const dt = new DataTransfer();
    dt.items.add(new File([content], 'dropped.jsonl', { type: 'application/x-ndjson' }));
    const target = document.querySelector('.app');
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, text);
  await waitReady(page);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '1');
  assert.equal(await page.locator('[data-testid="step"]').count(), 12);
  await context.close();
});

test('the bundled sample loads with one click from a sub-path', async () => {
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.click('[data-testid="load-sample"]');
  await waitReady(page);
  assert.equal(await page.textContent('[data-testid="format"]'), 'awtl');
  await context.close();
});
