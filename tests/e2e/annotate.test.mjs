// Annotating end to end: mark a critical step and fill the label, reload and load the same
// file (the label comes back), close the tab mid-edit (nothing lost), download each export and
// check it parses and matches what the panel shows, a large file's identity (hashed by a helper
// worker) is its SHA-256, import two annotators' files and read the agreement figures.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady, ROOT, FIXTURES } from './harness.mjs';
import { bigFile } from './gen.mjs';

const SAMPLE = join(ROOT, 'web', 'samples', 'sample.awtl.jsonl');
const ANNOTATOR_A = join(FIXTURES, 'labels', 'annotator_a.jsonl');
const ANNOTATOR_B = join(FIXTURES, 'labels', 'annotator_b.jsonl');
let srv, browser, sampleHash;

before(async () => {
  srv = await serveDist();
  browser = await launch();
  sampleHash = 'sha256:' + createHash('sha256').update(await readFile(SAMPLE)).digest('hex');
});
after(async () => { await browser?.close(); await srv?.close(); });

// Page errors and console errors, except the browser's own probe for /favicon.ico at the origin
// root (not a request the app makes; the page declares no icon).
function watchErrors(page, errors) {
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => {
    if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) errors.push(m.text());
  });
}

async function loadSample(page) {
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', SAMPLE);
  await waitReady(page);
  // The label form is the Annotate mode's (the URL hash keeps the mode across a reload).
  await page.click('[data-testid="mode-annotate"]');
  await page.waitForSelector('[data-testid="annotate"]');
}

async function download(page, testid) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid="${testid}"]`)]);
  const text = await readFile(await dl.path(), 'utf8');
  return { name: dl.suggestedFilename(), records: text.trim().split('\n').map((l) => JSON.parse(l)) };
}

test('a marked label survives a reload and a closed tab, and every export matches it', async () => {
  const { page, context, requests } = await newPage(browser);
  const errors = [];
  watchErrors(page, errors);
  await loadSample(page);
  assert.match(await page.textContent('[data-testid="label-critical"]'), /No critical step marked/);
  assert.ok(await page.isDisabled('[data-testid="mark-critical"]'), 'nothing selected yet');

  // Select step 4 in the trajectory, mark it critical.
  await page.click('[data-testid="step"][data-step="4"]');
  assert.equal(await page.textContent('[data-testid="mark-critical"]'), 'Mark step 4 critical');
  await page.click('[data-testid="mark-critical"]');
  assert.match(await page.textContent('[data-testid="label-critical"]'), /^Critical step: 4\b/);
  assert.equal(await page.getAttribute('[data-testid="label-critical"]', 'data-step'), '4');

  await page.fill('[data-testid="label-annotator"]', 'e2e annotator');
  await page.fill('[data-testid="label-agent"]', 'coder');
  await page.selectOption('[data-testid="label-category"]', 'history_conflict');
  await page.selectOption('[data-testid="label-phase"]', 'action');
  await page.fill('[data-testid="label-rationale"]', 'Dropped the alias the task asked to keep.');
  assert.match(await page.textContent('[data-testid="label-status"]'), /saved in this browser/);
  await page.locator('[data-testid="annotate"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'annotate-marked');

  // Reload the page and load the same file: the label is back.
  await page.reload();
  await page.waitForSelector('.app[data-state="empty"]');
  await page.setInputFiles('[data-testid="file-input"]', SAMPLE);
  await waitReady(page);
  await page.waitForSelector('[data-testid="label-critical"][data-step="4"]');
  assert.equal(await page.inputValue('[data-testid="label-rationale"]'), 'Dropped the alias the task asked to keep.');
  assert.equal(await page.inputValue('[data-testid="label-annotator"]'), 'e2e annotator');
  assert.equal(await page.inputValue('[data-testid="label-category"]'), 'history_conflict');
  assert.equal(await page.inputValue('[data-testid="label-phase"]'), 'action');
  assert.equal(await page.inputValue('[data-testid="label-agent"]'), 'coder');

  // Edit, then close the tab at once: the edit was already saved.
  await page.fill('[data-testid="label-rationale"]', 'Dropped the deprecated alias the task asked to keep.');
  await page.close();
  const page2 = await context.newPage();
  watchErrors(page2, errors);
  page2.on('request', (r) => requests.push(r.url()));
  await loadSample(page2);
  await page2.waitForSelector('[data-testid="label-critical"][data-step="4"]');
  const rationale = 'Dropped the deprecated alias the task asked to keep.';
  assert.equal(await page2.inputValue('[data-testid="label-rationale"]'), rationale);
  const shown = await page2.textContent('[data-testid="label-critical"]');
  assert.equal(shown, 'Critical step: 4 (agent coder)');
  await page2.locator('[data-testid="annotate"]').scrollIntoViewIfNeeded();
  await screenshot(page2, 'annotate-restored');

  // Labels JSONL.
  const jsonl = await download(page2, 'export-labels');
  assert.match(jsonl.name, /\.jsonl$/);
  assert.equal(jsonl.records.length, 1);
  const [label] = jsonl.records;
  assert.equal(label.content_hash, sampleHash, 'identity is the SHA-256 of the file');
  assert.equal(label.trajectory_id, 'run-demo-7');
  assert.equal(label.critical_step, 4);
  assert.equal(label.responsible_agent, 'coder');
  assert.equal(label.category, 'history_conflict');
  assert.equal(label.phase, 'action');
  assert.equal(label.rationale, rationale);
  assert.equal(label.annotator, 'e2e annotator');
  assert.ok(!Number.isNaN(Date.parse(label.time)), `time is a timestamp: ${label.time}`);

  // Who&When-style.
  const ww = await download(page2, 'export-who-and-when');
  assert.equal(ww.records.length, 1);
  assert.equal(ww.records[0].mistake_step, '4');
  assert.equal(ww.records[0].mistake_agent, 'coder');
  assert.equal(ww.records[0].mistake_reason, rationale);
  assert.equal(ww.records[0].trajectory_id, 'run-demo-7');

  // TRAJERRBENCH-style.
  const tb = await download(page2, 'export-trajerrbench');
  assert.equal(tb.records.length, 1);
  assert.deepEqual(tb.records[0].metadata.annotation, {
    critical_error_step: 4,
    critical_error_type: 'act.HistoryConflict',
    human_rationale: rationale,
  });
  assert.equal(tb.records[0].metadata.extra.annotator, 'e2e annotator');

  for (const url of requests) assert.ok(url.startsWith(srv.origin + '/'), `request left the origin: ${url}`);
  assert.deepEqual(errors, []);
  await context.close();
});

test('a large file hashed by the helper worker beside the parse has the SHA-256 identity', async () => {
  // Over 2 MiB: the ingest worker hands the hash to a second instance of itself.
  const big = await bigFile(20, 'hashed.jsonl');
  const workers = [];
  const expected = 'sha256:' + createHash('sha256').update(await readFile(big.path)).digest('hex');
  const { page, context } = await newPage(browser);
  const errors = [];
  watchErrors(page, errors);
  page.on('worker', (w) => workers.push(w.url()));
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', big.path);
  await waitReady(page, 60000);
  await page.click('[data-testid="mode-annotate"]');
  await page.waitForSelector('[data-testid="annotate"]');
  await page.click('[data-testid="step"][data-step="1"]');
  await page.click('[data-testid="mark-critical"]');
  await page.fill('[data-testid="label-annotator"]', 'e2e annotator');
  const jsonl = await download(page, 'export-labels');
  assert.equal(jsonl.records.length, 1);
  assert.equal(jsonl.records[0].content_hash, expected);
  assert.deepEqual(errors, []);
  assert.equal(workers.length, 2, `the ingest worker and its hashing helper: ${workers}`);
  await context.close();
});

test('importing two annotators\' files shows their agreement and disagreements', async () => {
  const { page, context } = await newPage(browser);
  const errors = [];
  watchErrors(page, errors);
  await loadSample(page);
  await page.setInputFiles('[data-testid="import-labels"]', [ANNOTATOR_A, ANNOTATOR_B]);
  await page.waitForSelector('[data-testid="agreement"]');
  assert.equal(await page.locator('[data-testid="imported-file"]').count(), 2);
  // annotator_b.jsonl has one truncated line: reported, the rest read.
  const problems = await page.locator('[data-testid="import-problem"]').allTextContents();
  assert.equal(problems.length, 1);
  assert.match(problems[0], /^line 3: /);

  // Hand-computed (see crates/core/tests/labels.rs, two_annotator_fixture_files_agree_as_computed):
  // four items; exact on 2, within ±1 on 3; Cohen's κ = 3/7, Fleiss' κ = 5/13.
  assert.equal(await page.textContent('[data-testid="agreement-annotators"]'), 'ana, ben');
  assert.equal(await page.textContent('[data-testid="agreement-items"]'), '4 of 4');
  assert.equal(await page.textContent('[data-testid="agreement-exact"]'), '50.0 % (2 of 4)');
  assert.equal(await page.textContent('[data-testid="agreement-within-one"]'), '75.0 % (3 of 4)');
  assert.equal(await page.textContent('[data-testid="agreement-cohen"]'), '0.429');
  assert.equal(await page.textContent('[data-testid="agreement-fleiss"]'), '0.385');
  // Both named an agent only on run-demo-7, the same one.
  assert.equal(await page.textContent('[data-testid="agreement-agent"]'), '100.0 % (1 of 1)');
  const rows = await page.locator('[data-testid="disagreement"]').evaluateAll((els) => els.map((e) => e.dataset.trajectory));
  assert.deepEqual(rows, ['run-demo-7', 'run-y']);
  await page.locator('[data-testid="agreement-panel"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'annotate-agreement');

  // Include this browser's own label: the fixtures name the sample's content hash, so "me" on
  // run-demo-7 joins the same item. Three annotators, one item labelled by all: answers 5, 6, 5;
  // Fleiss: P = 1/3, P̄e = (2/3)² + (1/3)² = 5/9, κ = (1/3 − 5/9)/(4/9) = −0.5.
  const fixtureHash = JSON.parse((await readFile(ANNOTATOR_A, 'utf8')).split('\n')[0]).content_hash;
  assert.equal(fixtureHash, sampleHash, 'fixture labels name the sample file (regenerate them if it changed)');
  await page.fill('[data-testid="label-annotator"]', 'me');
  await page.click('[data-testid="step"][data-step="5"]');
  await page.click('[data-testid="mark-critical"]');
  await page.check('[data-testid="agreement-include-mine"]');
  await page.waitForFunction(() => document.querySelector('[data-testid="agreement-annotators"]')?.textContent === 'ana, ben, me');
  assert.equal(await page.textContent('[data-testid="agreement-items"]'), '1 of 4');
  assert.equal(await page.textContent('[data-testid="agreement-exact"]'), '0.0 % (0 of 1)');
  assert.equal(await page.textContent('[data-testid="agreement-within-one"]'), '100.0 % (1 of 1)');
  assert.equal(await page.textContent('[data-testid="agreement-fleiss"]'), '-0.500');
  assert.match(await page.textContent('[data-testid="agreement-cohen"]'), /two annotators only/);
  assert.equal(await page.locator('[data-testid="agreement-pair"]').count(), 3);
  assert.deepEqual(errors, []);
  await context.close();
});
