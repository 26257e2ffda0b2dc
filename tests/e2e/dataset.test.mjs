// The benchmark dataset loop in the browser (docs/dataset.md): label two trajectories of two
// files in the Annotate mode, export the dataset in each style (complete items: every step at
// its index, the label, the source's hash), then in a fresh browser profile load the same files,
// import the dataset and see both labels on the same steps.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady, ROOT, FIXTURES } from './harness.mjs';
import { scratchDir } from './gen.mjs';

const SAMPLE = join(ROOT, 'web', 'samples', 'sample.awtl.jsonl');
const TAU2 = join(FIXTURES, 'tau2', 'airline_3_simulations.json');
const TAU2_RUN = 'c4726c14-f132-4944-a51a-465518856f47';
let srv, browser;
const hash = async (f) => 'sha256:' + createHash('sha256').update(await readFile(f)).digest('hex');

before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

async function loadBoth(page) {
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', [SAMPLE, TAU2]);
  await waitReady(page);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="queue-item"]').length === 4);
  await page.click('[data-testid="mode-annotate"]');
}

async function open(page, id) {
  await page.locator('[data-testid="queue-item"]', { hasText: id }).locator('button.queue-item').click();
  await page.waitForSelector('[data-testid="annotate"]');
  await page.waitForSelector('[data-testid="dataset-panel"]');
}

async function mark(page, id, step) {
  await open(page, id);
  await page.click(`[data-testid="step"][data-step="${step}"]`);
  await page.click('[data-testid="mark-critical"]');
  await page.waitForSelector(`[data-testid="label-critical"][data-step="${step}"]`);
}

async function exportDataset(page, style) {
  await page.selectOption('[data-testid="dataset-style"]', style);
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-dataset"]')]);
  const text = await readFile(await dl.path(), 'utf8');
  await page.waitForSelector('[data-testid="dataset-status"]:has-text("Exported 2 item(s)")');
  return { name: dl.suggestedFilename(), text, items: text.trim().split('\n').map((l) => JSON.parse(l)) };
}

const labelOf = (page, id) =>
  page.locator('[data-testid="queue-item"]', { hasText: id }).locator('[data-testid="queue-label"]').textContent();

test('two labels export as complete dataset items and come back on the same steps', async () => {
  const { page, errors, requests } = await newPage(browser);
  await loadBoth(page);
  await mark(page, 'run-demo-7', 4);
  await page.fill('[data-testid="label-annotator"]', 'ana');
  await mark(page, TAU2_RUN, 6);
  await page.fill('[data-testid="label-rationale"]', 'Refunds without checking the fare rules.');
  await page.locator('[data-testid="dataset-panel"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'dataset-panel');

  const tb = await exportDataset(page, 'trajerrbench');
  assert.equal(tb.name, 'dataset.trajerrbench.jsonl');
  const byId = Object.fromEntries(tb.items.map((i) => [i.metadata.task_id, i]));
  const want = { 'run-demo-7': [4, SAMPLE], [TAU2_RUN]: [6, TAU2] };
  for (const [id, [step, file]] of Object.entries(want)) {
    const item = byId[id];
    assert.ok(item, `an item for ${id}`);
    item.messages.forEach((m, i) => assert.equal(m.step, i, 'step equals its index'));
    assert.ok(item.messages.every((m) => ['system', 'user', 'assistant', 'tool'].includes(m.role)));
    assert.equal(item.metadata.annotation.critical_error_step, step);
    assert.equal(item.metadata.extra.content_hash, await hash(file));
    assert.equal(item.metadata.extra.trajectory_id, id);
    assert.equal(item.metadata.extra.labels.length, 1);
  }
  assert.equal(byId[TAU2_RUN].metadata.annotation.human_rationale, 'Refunds without checking the fare rules.');

  const ww = await exportDataset(page, 'who-and-when');
  assert.equal(ww.name, 'dataset.who-and-when.jsonl');
  const steps = Object.fromEntries(ww.items.map((i) => [i.question_ID, i.mistake_step]));
  assert.deepEqual(steps, { 'run-demo-7': '4', [TAU2_RUN]: '6' });
  assert.ok(ww.items.every((i) => Array.isArray(i.history) && i.history.every((h) => typeof h.content === 'string')));

  assert.deepEqual(errors, []);

  // A fresh browser profile (nothing saved): load the same files, import the dataset.
  const dir = await scratchDir('dataset-');
  const saved = join(dir, tb.name);
  await writeFile(saved, tb.text);
  const fresh = await newPage(browser);
  await loadBoth(fresh.page);
  await open(fresh.page, 'run-demo-7');
  assert.equal(await labelOf(fresh.page, TAU2_RUN), 'label: —');
  await fresh.page.setInputFiles('[data-testid="import-dataset"]', saved);
  await fresh.page.waitForSelector('[data-testid="import-dataset-status"]:has-text("Imported 2 label(s)")');
  assert.match(await fresh.page.textContent('[data-testid="import-dataset-status"]'), /2 for the files open now/);
  // Both labels in the queue, on the same steps; the open trajectory's panel shows its label.
  assert.equal(await labelOf(fresh.page, 'run-demo-7'), 'label: #4');
  assert.equal(await labelOf(fresh.page, TAU2_RUN), 'label: #6');
  await fresh.page.waitForSelector('[data-testid="label-critical"][data-step="4"]');
  assert.equal(await fresh.page.inputValue('[data-testid="label-annotator"]'), 'ana');
  await open(fresh.page, TAU2_RUN);
  await fresh.page.waitForSelector('[data-testid="label-critical"][data-step="6"]');
  assert.equal(await fresh.page.inputValue('[data-testid="label-rationale"]'), 'Refunds without checking the fare rules.');
  await screenshot(fresh.page, 'dataset-imported');
  assert.deepEqual(fresh.errors, []);

  // Nothing left the page.
  const origin = new URL(srv.url).origin;
  assert.deepEqual([...requests, ...fresh.requests].filter((u) => !u.startsWith(origin) && !u.startsWith('blob:') && !u.startsWith('data:')), []);
  await fresh.context.close();
});

test('the export covers only what the queue filter shows when asked', async () => {
  const { page, errors } = await newPage(browser);
  await loadBoth(page);
  await mark(page, 'run-demo-7', 4);
  await mark(page, TAU2_RUN, 6);
  // Show only the tau2 file's format.
  await page.selectOption('[data-testid="queue-format"]', 'tau2');
  await page.check('[data-testid="dataset-filtered"]');
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-dataset"]')]);
  const items = (await readFile(await dl.path(), 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(items.map((i) => i.metadata.task_id), [TAU2_RUN]);
  await page.waitForSelector('[data-testid="dataset-status"]:has-text("Exported 1 item(s)")');
  assert.deepEqual(errors, []);
});
