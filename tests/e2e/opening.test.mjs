// Opening a file: the worker sends its first trajectory's columns with its `Loaded`, unasked,
// so the page shows the steps without a round trip (`Request::Load`'s `open`); another
// trajectory, or the one a deep link names, is asked for as before.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, newPage, waitReady, FIXTURES } from './harness.mjs';
import { steps, scratchDir } from './gen.mjs';

let srv, browser, twoRuns, dir;

before(async () => {
  srv = await serveDist();
  browser = await launch();
  // Two runs of nine lines each: the first's steps are on lines 1–9, the second's on 10–18.
  dir = await scratchDir('opening-');
  twoRuns = join(dir, 'two-runs.jsonl');
  const a = await readFile(join(FIXTURES, 'awtl', 'env_blocker_browser.awtl.jsonl'), 'utf8');
  const b = await readFile(join(FIXTURES, 'awtl', 'passed_run.awtl.jsonl'), 'utf8');
  await writeFile(twoRuns, a.trimEnd() + '\n' + b);
});
after(async () => { await browser?.close(); await srv?.close(); });

/** A page that records the kind of every request it posts to the worker: the first byte of the
 * request's bytes, its variant's index in `Request` (`crates/app/src/protocol.rs`, `wire_enum!`:
 * `Columns` is the fourth, 3). */
async function recordingPage() {
  const { page, context, errors } = await newPage(browser);
  await page.addInitScript(() => {
    window.__asked = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (msg, ...rest) {
      if (msg && msg.req instanceof Uint8Array) window.__asked.push(msg.req[0]);
      if (msg && msg.req instanceof Uint8Array && msg.req[0] === 0) {
        window.__heads = window.__heads || [];
        window.__heads.push(msg.head instanceof Uint8Array ? msg.head.length : null);
      }
      return post.call(this, msg, ...rest);
    };
  });
  return { page, context, errors };
}

const COLUMNS = 3;
const asked = (page) => page.evaluate(() => window.__asked.slice());
const shownLines = (page) =>
  page.$$eval('[data-testid="step"]', (els) => els.map((e) => Number(e.dataset.line)));

test('a file opens at its first trajectory without asking for its columns; another is asked for', async () => {
  const { page, context, errors } = await recordingPage();
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', twoRuns);
  await waitReady(page);
  await page.waitForSelector('[data-testid="step"]');
  const first = await shownLines(page);
  assert.ok(first.length > 1 && first.every((l) => l >= 1 && l <= 9), `the first run's steps: ${first}`);
  assert.equal((await asked(page)).filter((k) => k === COLUMNS).length, 0, 'its columns came unasked');
  await page.click('[data-testid="queue-item"][data-traj="1"] button.queue-item');
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="step"]')]
    .every((e) => Number(e.dataset.line) >= 10));
  assert.equal((await asked(page)).filter((k) => k === COLUMNS).length, 1, 'the second run asked for');
  assert.deepEqual(errors, []);
  await context.close();
});

test('a deep link to the second trajectory opens it, not the first one sent unasked', async () => {
  const { page, context, errors } = await recordingPage();
  await page.goto(`${srv.url}#f=0&t=1`);
  await page.setInputFiles('[data-testid="file-input"]', twoRuns);
  await waitReady(page);
  await page.waitForSelector('[data-testid="queue-item"][data-traj="1"] button[aria-current="true"]');
  await page.waitForSelector('[data-testid="step"]');
  const lines = await shownLines(page);
  assert.ok(lines.length > 1 && lines.every((l) => l >= 10 && l <= 18), `the second run's steps: ${lines}`);
  assert.equal((await asked(page)).filter((k) => k === COLUMNS).length, 1, 'the linked run asked for');
  assert.deepEqual(errors, []);
  await context.close();
});

test("the opened file's first bytes, read by the page already, go with its Load; nothing is read twice or lost", async () => {
  // Two files of 3,000 lines (~290 KB each): lines cross the 64 KiB the page reads first.
  const paths = [];
  for (const name of ['first.jsonl', 'second.jsonl']) {
    const path = join(dir, name);
    await writeFile(path, steps(3000));
    paths.push(path);
  }
  const { page, context, errors } = await recordingPage();
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', paths);
  await waitReady(page);
  const lines = () => page.textContent('[data-testid="lines"]');
  assert.ok((await lines()).startsWith('3000'), `the first file's lines: ${await lines()}`);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '0');
  // The first file's Load carried the page's 64 KiB; the second's nothing (the worker reads it).
  assert.deepEqual(await page.evaluate(() => window.__heads), [65536, null]);
  await page.locator('[data-testid="queue-file"]', { hasText: 'second.jsonl' }).locator('button.queue-item').first().click();
  await page.waitForFunction(() => (document.querySelector('[data-testid="lines"]')?.textContent || '').startsWith('3000'));
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '0');
  assert.deepEqual(errors, []);
  await context.close();
});
