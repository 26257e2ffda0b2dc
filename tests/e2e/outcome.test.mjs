// The reviewer's word on how a run ended: a real mini-swe-agent run whose file does not say
// whether it passed shows no diagnosis; "This run failed" in the label form shows the critical
// step, classification and a failed turn case, is saved with the label, survives a reload and
// is in every export; "As the file says" takes it back.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady, FIXTURES } from './harness.mjs';

const RUN = join(FIXTURES, 'mini_swe_agent', 'django__django-10914.trimmed.traj.json');
let srv, browser;

before(async () => {
  srv = await serveDist();
  browser = await launch();
});
after(async () => { await browser?.close(); await srv?.close(); });

async function loadRun(page) {
  await page.setInputFiles('[data-testid="file-input"]', RUN);
  await waitReady(page);
  // How the run ended is said in the label form, the Annotate mode's.
  await page.click('[data-testid="mode-annotate"]');
  await page.waitForSelector('[data-testid="annotate"]');
}

async function download(page, testid) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid="${testid}"]`)]);
  const text = await readFile(await dl.path(), 'utf8');
  return text.trim().split('\n').map((l) => JSON.parse(l));
}

const text = (page, testid) => page.textContent(`[data-testid="${testid}"]`);

async function waitOutcome(page, word) {
  await page.waitForFunction(
    (w) => document.querySelector('[data-testid="outcome"]')?.textContent === w, word);
}

test('"this run failed" shows the diagnosis, survives a reload and is exported with the label', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await loadRun(page);
  assert.equal(await text(page, 'outcome'), 'unknown');
  assert.equal(await text(page, 'critical'), '—', 'the file does not say the run failed');
  assert.ok(await page.isChecked('[data-testid="label-outcome-unknown"]'));

  await page.check('[data-testid="label-outcome-failed"]');
  await waitOutcome(page, 'failed');
  await page.waitForFunction(() => /^#\d+/.test(document.querySelector('[data-testid="critical"]')?.textContent ?? ''));
  assert.notEqual(await text(page, 'classification'), '—');
  // The candidates sit beside the diagnosis, in the Review mode.
  await page.click('[data-testid="mode-review"]');
  await page.waitForSelector('[data-testid="diagnosis"][data-outcome="failed"] [data-testid="diagnosis-step"]');
  assert.ok(await page.locator('[data-testid="candidate"]').count() >= 1, 'candidates listed');
  await page.click('[data-testid="mode-annotate"]');
  assert.match(await text(page, 'label-status'), /saved in this browser/);
  await page.locator('[data-testid="annotate"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'outcome-failed');

  // Reload and load the same file: the reviewer's word is back, and so is the diagnosis.
  await page.reload();
  await page.waitForSelector('.app[data-state="empty"]');
  await loadRun(page);
  await waitOutcome(page, 'failed');
  assert.ok(await page.isChecked('[data-testid="label-outcome-failed"]'));
  await page.waitForFunction(() => /^#\d+/.test(document.querySelector('[data-testid="critical"]')?.textContent ?? ''));

  // Every export carries it.
  const [label] = await download(page, 'export-labels');
  assert.equal(label.outcome, 'failed');
  assert.equal(label.trajectory_id, 'django__django-10914');
  const [ww] = await download(page, 'export-who-and-when');
  assert.equal(ww.outcome, 'failed');
  const [tb] = await download(page, 'export-trajerrbench');
  assert.equal(tb.metadata.extra.outcome, 'failed');

  // "This run passed", then "As the file says": no diagnosis, then the file's own outcome.
  await page.check('[data-testid="label-outcome-passed"]');
  await waitOutcome(page, 'passed');
  assert.equal(await text(page, 'critical'), '—');
  await page.check('[data-testid="label-outcome-unknown"]');
  await waitOutcome(page, 'unknown');
  assert.equal(await text(page, 'critical'), '—');
  const [back] = await download(page, 'export-labels');
  assert.equal(back.outcome, 'unknown');

  assert.deepEqual(errors, []);
  await context.close();
});

test('a run whose file does not say how it ended is not called failed, even with a critical step', async () => {
  // The whole django run (its file says `Submitted`): an observed error gives it a critical
  // step, but the verdict says it is where the run failed *if* it did.
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', join(FIXTURES, 'mini_swe_agent', 'django__django-10914.traj.json.gz'));
  await waitReady(page);
  await page.waitForSelector('[data-testid="diagnosis-verdict"] [data-testid="diagnosis-step"]');
  assert.match(await text(page, 'diagnosis-verdict'), /^If this run failed, it failed at step #\d+/);
  assert.match(await text(page, 'diagnosis-unknown'), /does not say how this run ended/);
  assert.equal(await page.locator('[data-testid="diagnosis-verdict"].err').count(), 0);
  await screenshot(page, 'outcome-unknown-with-critical');
  assert.deepEqual(errors, []);
  await context.close();
});
