// A file larger than a browser tab can hold is refused with a clear message before it is read,
// not a crashed tab (docs/limits.md). The file is sparse: 1.1 GiB on paper, no disk used.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, newPage, waitReady } from './harness.mjs';
import { scratchDir } from './gen.mjs';

let srv, browser, dir;
before(async () => { srv = await serveDist(); browser = await launch(); dir = await scratchDir('too-large-'); });
after(async () => { await browser?.close(); await srv?.close(); await rm(dir, { recursive: true, force: true }); });

test('a file over the tab limit gets a message at once and the page keeps working', async () => {
  const path = join(dir, 'huge.jsonl');
  const f = await open(path, 'w');
  await f.truncate(Math.round(1.1 * 1024 ** 3));
  await f.close();
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', path);
  const error = page.locator('[data-testid="load-error"]').first();
  await error.waitFor({ timeout: 20000 });
  assert.match(await error.textContent(), /1181 MB: over the 1074 MB a browser tab can analyse/);
  assert.match(await error.textContent(), /trajscope CLI/);
  // The page still loads the next file.
  await page.click('[data-testid="load-sample"]');
  await waitReady(page);
  assert.deepEqual(errors, []);
  await context.close();
});
