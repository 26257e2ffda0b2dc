// Archives and folders of traces in Chromium: a dropped .tar.gz holding three formats and a
// picked .zip queue every member as its own trace named ARCHIVE!MEMBER; a picked folder queues
// each of its files by its path (hidden files left out). The archives are built here from
// tests/fixtures files with the system's tar and zip, as a user makes them. An archive of
// hundreds of traces lists its files a page at a time, so the page stays small.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdir, copyFile, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { serveDist, launch, newPage, screenshot, waitReady, FIXTURES } from './harness.mjs';
import { bigFile, scratchDir } from './gen.mjs';

const AXE = await readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

// [fixture, path in the archive or folder, format, trajectories]
const FILES = [
  ['awtl/passed_run.awtl.jsonl', 'runs/passed_run.awtl.jsonl', 'awtl', 1],
  ['claude_code/hello-world-script.jsonl', 'sessions/hello.jsonl', 'claude-code', 1],
  ['tau2/airline_3_simulations.json', 'tau2/airline.json', 'tau2', 3],
];

let srv, browser, dir, tarGz, zipFile, manyZip, manyDir;
const MANY = 250;

before(async () => {
  srv = await serveDist();
  browser = await launch();
  const tmp = await scratchDir('archives-');
  dir = join(tmp, 'traces');
  for (const [from, to] of FILES) {
    await mkdir(join(dir, to, '..'), { recursive: true });
    await copyFile(join(FIXTURES, from), join(dir, to));
  }
  await writeFile(join(dir, '.DS_Store'), Buffer.from([0, 0, 0, 1, 0x42, 0x75, 0x64, 0x31]));
  tarGz = join(tmp, 'three.tar.gz');
  execFileSync('tar', ['czf', tarGz, '-C', dir, '.']);
  zipFile = join(tmp, 'three.zip');
  execFileSync('zip', ['-qr', zipFile, '.'], { cwd: dir });
  // MANY three-line traces, zipped in name order: m000 fails, every other one passes.
  const many = join(tmp, 'many');
  await mkdir(many);
  const names = [];
  for (let i = 0; i < MANY; i++) {
    const name = `m${String(i).padStart(3, '0')}.jsonl`, run_id = `r${i}`;
    names.push(name);
    await writeFile(join(many, name), [{ type: 'run_start', run_id, task: `task ${i}` },
      { type: 'action', run_id, agent: 'coder', tool: 'shell', command: `make t${i}` },
      { type: 'run_end', run_id, status: i === 0 ? 'failed' : 'passed' }].map((e) => JSON.stringify(e) + '\n').join(''));
  }
  manyZip = join(tmp, 'many.zip');
  execFileSync('zip', ['-q', manyZip, ...names], { cwd: many });
  manyDir = many;
});
after(async () => { await browser?.close(); await srv?.close(); });

/** The queue's files (name) and trajectories (format), once `n` files are in and ready. */
async function queue(page, n) {
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid="queue-file"]').length === n, n);
  await waitReady(page);
  await page.waitForFunction(() => [...document.querySelectorAll('[data-testid="queue-file"]')]
    .every((f) => f.querySelector('[data-testid="queue-item"]') || f.querySelector('[data-testid="load-error"]')));
  return page.locator('[data-testid="queue-file"]').evaluateAll((els) => els.map((e) => ({
    name: e.querySelector('.qname').textContent,
    formats: [...e.querySelectorAll('[data-testid="queue-item"] .qmeta span:first-child')].map((s) => s.textContent),
    error: e.querySelector('[data-testid="load-error"]')?.textContent ?? null,
  })));
}

function expected(prefix) {
  return FILES.map(([, to, format, n]) => ({ name: prefix + to, formats: Array(n).fill(format), error: null }))
    .sort((a, b) => a.name.localeCompare(b.name));
}

const byName = (xs) => [...xs].sort((a, b) => a.name.localeCompare(b.name));

test('a dropped .tar.gz holding three formats queues all three, each named ARCHIVE!MEMBER', async () => {
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.waitForSelector('.app[data-state="empty"]');
  const bytes = [...await readFile(tarGz)];
  await page.evaluate((bytes) => {
    const dt = new DataTransfer();
    dt.items.add(new File([new Uint8Array(bytes)], 'three.tar.gz'));
    const target = document.querySelector('.app');
    target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
    target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  }, bytes);
  const got = await queue(page, 3);
  assert.deepEqual(byName(got), expected('three.tar.gz!'));
  await screenshot(page, 'archives-tar-gz');
  await context.close();
});

test('a picked .zip queues its members the same way', async () => {
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', zipFile);
  const got = await queue(page, 3);
  assert.deepEqual(byName(got), expected('three.zip!'));
  await context.close();
});

test('a zip of a member over 1 MiB and a small one: both read whole, the large one in slices', async () => {
  // A small member goes to the worker as its bytes, a large one as a blob read slice by slice
  // (gather::MEMBER_BYTES): either way every line is counted.
  const big = await bigFile(3, 'big.jsonl');
  const zip = join(await scratchDir('big-member-'), 'mixed.zip');
  execFileSync('zip', ['-qj', zip, big.path, join(FIXTURES, 'awtl', 'passed_run.awtl.jsonl')]);
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', zip);
  const got = await queue(page, 2);
  assert.deepEqual(got.map((f) => f.name).sort(), ['mixed.zip!big.jsonl', 'mixed.zip!passed_run.awtl.jsonl']);
  assert.ok(got.every((f) => f.error === null && f.formats.every((x) => x === 'awtl')), JSON.stringify(got));
  for (const [name, lines] of [['big.jsonl', big.lines], ['passed_run.awtl.jsonl', 9]]) {
    await page.locator('[data-testid="queue-file"]', { hasText: name }).locator('button.queue-item').first().click();
    await page.waitForFunction((n) => (document.querySelector('[data-testid="lines"]')?.textContent || '').startsWith(String(n)), lines);
  }
  assert.deepEqual(errors, []);
  await context.close();
});

test('a picked folder queues each of its files by its path, hidden files left out', async () => {
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  assert.notEqual(await page.getAttribute('[data-testid="folder-input"]', 'webkitdirectory'), null);
  await page.setInputFiles('[data-testid="folder-input"]', dir);
  const got = await queue(page, 3);
  assert.deepEqual(byName(got), expected('traces/'));
  await context.close();
});

test('an archive of 250 traces lists them 100 files at a time; turning the page opens its first file', async () => {
  const { page, context } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="file-input"]', manyZip);
  const range = (text) => page.waitForFunction((t) => document.querySelector('[data-testid="queue-pager-range"]')?.textContent === t, text);
  await range('files 1–100 of 250');
  await waitReady(page);
  // The first member read is the view, and stays so as the others are read (the queue stays
  // on its page).
  assert.equal(await page.getByTestId('queue-pager-range').textContent(), 'files 1–100 of 250');
  const shown = () => page.locator('[data-testid="queue-file"] .qname').allTextContents();
  const open = () => page.locator('[data-testid="queue-item"] [aria-current="true"]').count();
  let names = await shown();
  assert.equal(names.length, 100);
  assert.deepEqual([names[0], names[99]], ['many.zip!m000.jsonl', 'many.zip!m099.jsonl']);
  assert.ok(await page.getByTestId('queue-pager-previous').isDisabled());
  await screenshot(page, 'archives-many-paged');
  // The pager passes axe-core (serious and critical rules), as the rest of the page does.
  await page.evaluate(AXE);
  const found = await page.evaluate(() => window.axe.run(document, { resultTypes: ['violations'] }));
  assert.deepEqual(found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`), []);

  await page.getByTestId('queue-pager-next').click();
  await range('files 101–200 of 250');
  names = await shown();
  assert.deepEqual([names.length, names[0], names[99]], [100, 'many.zip!m100.jsonl', 'many.zip!m199.jsonl']);
  // The page's first file is the one open.
  await page.waitForFunction(() => document.querySelector('[data-testid="queue-item"] [aria-current="true"]')
    ?.closest('[data-testid="queue-file"]').querySelector('.qname').textContent === 'many.zip!m100.jsonl');
  assert.equal(await open(), 1);

  await page.getByTestId('queue-pager-next').click();
  await range('files 201–250 of 250');
  assert.equal((await shown()).length, 50);
  assert.ok(await page.getByTestId('queue-pager-next').isDisabled());
  await page.getByTestId('queue-pager-previous').click();
  await range('files 101–200 of 250');
  // Under a filter the pages hold the files it lets through (and the open one): here m000,
  // the one failed run, and m100, open.
  await page.getByTestId('queue-failed-only').check();
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="queue-file"]').length === 2);
  assert.deepEqual(await shown(), ['many.zip!m000.jsonl', 'many.zip!m100.jsonl']);
  assert.equal(await page.getByTestId('queue-pager').count(), 0);
  await page.getByTestId('queue-failed-only').uncheck();
  await range('files 101–200 of 250');
  // The whole page stays far below the DOM budget whatever the number of files.
  assert.ok(await page.evaluate(() => document.querySelectorAll('*').length) < 3000);
  await context.close();
});

test('a picked folder of 250 traces queues them all, in order, a page at a time', async () => {
  const { page, context, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.setInputFiles('[data-testid="folder-input"]', manyDir);
  await page.waitForFunction(() => document.querySelector('[data-testid="queue-pager-range"]')?.textContent === 'files 1–100 of 250');
  await waitReady(page);
  const names = await page.locator('[data-testid="queue-file"] .qname').allTextContents();
  assert.deepEqual([names.length, names[0], names[99]], [100, 'many/m000.jsonl', 'many/m099.jsonl']);
  await page.getByTestId('queue-pager-next').click();
  await page.getByTestId('queue-pager-next').click();
  await page.waitForFunction(() => document.querySelector('[data-testid="queue-pager-range"]')?.textContent === 'files 201–250 of 250');
  assert.equal(await page.locator('[data-testid="queue-file"] .qname').last().textContent(), 'many/m249.jsonl');
  assert.deepEqual(errors, []);
  await context.close();
});
