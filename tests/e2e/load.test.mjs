// Loading: progress and cancel of a large file read by the worker, many files by drop forming
// a work queue, a drop at the very start, pasted text, a same-origin ?url= sample (and another
// origin refused).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady, ROOT } from './harness.mjs';
import { bigFile } from './gen.mjs';

const SAMPLE = join(ROOT, 'web', 'samples', 'sample.awtl.jsonl');
let srv, browser, big;

before(async () => {
  srv = await serveDist();
  browser = await launch();
  big = await bigFile(60);
});
after(async () => { await browser?.close(); await srv?.close(); });

test('a large file shows progress (bytes, lines, quarantined), keeps the page responsive, and loads', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  // The read can be over in well under a second, quicker than a poll from here: the page
  // itself records what the progress panel said (the last state with a line counted) and how
  // long its event loop went without a turn while the panel was up.
  await page.evaluate(() => {
    const probe = { seen: null, maxGap: 0 };
    window.__loadProbe = probe;
    const text = (id) => document.querySelector(`[data-testid="${id}"]`)?.textContent || '';
    new MutationObserver(() => {
      if (/[1-9]/.test(text('progress-lines'))) {
        probe.seen = { lines: text('progress-lines'), bytes: text('progress-bytes'), quarantined: text('progress-quarantined') };
      }
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
    let last = performance.now();
    const tick = () => {
      const now = performance.now();
      if (document.querySelector('[data-testid="progress"]')) probe.maxGap = Math.max(probe.maxGap, now - last);
      last = now;
      if (!document.querySelector('.app[data-state="ready"]:not([data-reading])')) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
  });
  await page.setInputFiles('[data-testid="file-input"]', big.path);
  await waitReady(page, 120000);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '0');
  const lines = await page.textContent('[data-testid="lines"]');
  assert.ok(lines.startsWith(String(big.lines)), `${lines} vs ${big.lines}`);
  assert.ok(await page.locator('[data-testid="queue-item"]').count() > 1, 'one trajectory per run in the queue');
  const probe = await page.evaluate(() => window.__loadProbe);
  assert.ok(probe.seen, 'the progress panel counted lines while the file was read');
  assert.match(probe.seen.bytes, /of 60\.\d MB/);
  assert.match(probe.seen.quarantined, /^\d+ quarantined$/);
  // The page answers while the worker reads: its event loop never waited a second for a turn.
  assert.ok(probe.maxGap < 1000, `the main thread is free during ingest (longest wait ${probe.maxGap.toFixed(0)} ms)`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('cancel stops a load in progress', async () => {
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  // Clicked from inside the page the moment it appears: a click from here could come after a
  // quick read had ended.
  await page.evaluate(() => {
    const obs = new MutationObserver(() => {
      const button = document.querySelector('[data-testid="cancel-load"]');
      if (button) { obs.disconnect(); button.click(); }
    });
    obs.observe(document.body, { subtree: true, childList: true });
  });
  await page.setInputFiles('[data-testid="file-input"]', big.path);
  await page.waitForSelector('[data-testid="load-cancelled"]');
  await page.waitForFunction(() => document.querySelector('.app').dataset.state !== 'loading');
  assert.equal(await page.locator('[data-testid="step"]').count(), 0);
  await context.close();
});

test('many files dropped at once form a work queue; selecting an item shows it', async () => {
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  // The drop is dispatched by hand (no auto-wait): the app must be mounted first.
  await page.waitForSelector('.app[data-state="empty"]');
  const text = await readFile(SAMPLE, 'utf8');
  const other = ['{"type":"run_start","run_id":"other-run"}', '{"type":"message","run_id":"other-run","role":"user","content":"hi"}',
    '{"type":"run_end","run_id":"other-run","status":"passed"}'].join('\n') + '\n';
  await page.evaluate(([a, b]) => {
    const dt = new DataTransfer();
    dt.items.add(new File([a], 'one.jsonl'));
    dt.items.add(new File([b], 'two.jsonl'));
    const target = document.querySelector('.app');
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, [text, other]);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="queue-item"]').length === 2);
  await waitReady(page);
  const items = page.locator('[data-testid="queue-item"]');
  assert.match(await items.nth(0).textContent(), /run-demo-7.*awtl.*12 steps.*failed.*critical: #\d+/);
  assert.match(await items.nth(1).textContent(), /other-run.*3 steps.*passed.*critical: —/);
  // Nothing labelled yet.
  assert.deepEqual(await page.locator('[data-testid="queue-label"]').allTextContents(), ['label: —', 'label: —']);
  // The drop opened one of its files, the first read.
  assert.equal(await page.locator('[data-testid="queue-item"] [aria-current="true"]').count(), 1);
  await items.nth(1).locator('button.queue-item').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="traj-id"]')?.textContent === 'other-run');
  await waitReady(page);
  assert.equal(await page.locator('[data-testid="step"]').count(), 3);
  await screenshot(page, 'load-queue');
  await context.close();
});

test('a file dropped the moment the app appears loads (the worker starts on demand)', async () => {
  const { page, context } = await newPage(browser);
  const text = await readFile(SAMPLE, 'utf8');
  // Drop from a MutationObserver as soon as the app's root is in the DOM: before the effect
  // that starts the worker has run.
  await page.addInitScript((body) => {
    new MutationObserver((_, observer) => {
      const app = document.querySelector('.app');
      if (!app) return;
      observer.disconnect();
      const dt = new DataTransfer();
      dt.items.add(new File([body], 'early.jsonl'));
      app.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    }).observe(document, { childList: true, subtree: true });
  }, text);
  await page.goto(srv.url);
  await waitReady(page);
  assert.equal(await page.locator('[data-testid="load-error"]').count(), 0);
  assert.equal(await page.locator('[data-testid="queue-item"]').count(), 1);
  assert.equal(await page.textContent('[data-testid="traj-id"]'), 'run-demo-7');
  await context.close();
});

test('pasted JSONL text loads', async () => {
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.click('[data-testid="paste-toggle"]');
  await page.fill('[data-testid="paste-text"]', await readFile(SAMPLE, 'utf8'));
  await page.click('[data-testid="paste-load"]');
  await waitReady(page);
  assert.equal(await page.textContent('[data-testid="format"]'), 'awtl');
  assert.equal(await page.locator('[data-testid="step"]').count(), 12);
  await context.close();
});

test('?url= loads a same-origin sample and refuses another origin', async () => {
  const { page, context, requests } = await newPage(browser);
  await page.goto(srv.url + '?url=samples/sample.awtl.jsonl');
  await waitReady(page);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '1');
  await page.goto(srv.url + '?url=' + encodeURIComponent('http://example.invalid/trace.jsonl'));
  await page.waitForSelector('[data-testid="notice"]');
  assert.match(await page.textContent('[data-testid="notice"]'), /only traces from this site/);
  // A URL of no origin is named by its scheme, not as "null".
  await page.goto(srv.url + '?url=' + encodeURIComponent('javascript:alert(1)'));
  await page.waitForSelector('[data-testid="notice"]');
  assert.match(await page.textContent('[data-testid="notice"]'), /only traces from this site can be loaded by URL, not a javascript: URL/);
  for (const url of requests) assert.ok(url.startsWith(srv.origin + '/'), `request left the origin: ${url}`);
  await context.close();
});
