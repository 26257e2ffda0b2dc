// Every built asset is named after its content, the worker's files included, so a deploy never
// serves a cached old file beside a new page; the page starts the worker through the hashed
// loader it names in <meta name="trajscope-worker">.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { DIST, serveDist, launch, newPage, waitReady } from './harness.mjs';

let srv, browser;
before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

async function files(dir) {
  const out = [];
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...(await files(p))); else out.push(relative(DIST, p));
  }
  return out;
}

const sha16 = async (name) => createHash('sha256').update(await readFile(join(DIST, name))).digest('hex').slice(0, 16);

test('every built file but index.html and the bundled samples carries a content hash', async () => {
  const all = await files(DIST);
  // (dot files are trunk's own, e.g. its .trunk-lock, not assets the page loads)
  const built = all.filter((f) => f !== 'index.html' && !f.startsWith('samples/') && !f.split('/').pop().startsWith('.'));
  assert.ok(built.some((f) => f.endsWith('.wasm')), `no wasm in ${all}`);
  const unhashed = built.filter((f) => !/-[0-9a-f]{8,16}(_bg\.wasm|_loader\.js|\.[a-z]+)$/.test(f));
  assert.deepEqual(unhashed, [], 'built files without a content hash in their name');
  for (const stale of ['worker.js', 'worker_bg.wasm', 'worker_loader.js']) assert.ok(!all.includes(stale), `${stale} is left`);
});

test('the worker files are named after their bytes and the loader names them', async () => {
  const html = await readFile(join(DIST, 'index.html'), 'utf8');
  const loader = html.match(/<meta name="trajscope-worker" content="(worker-([0-9a-f]{16})_loader\.js)"/);
  assert.ok(loader, 'index.html names a hashed worker loader');
  assert.equal(await sha16(loader[1]), loader[2]);
  const shim = await readFile(join(DIST, loader[1]), 'utf8');
  const js = shim.match(/"\.\/(worker-([0-9a-f]{16})\.js)"/);
  const wasm = shim.match(/"\.\/(worker-([0-9a-f]{16})_bg\.wasm)"/);
  assert.ok(js && wasm, `the loader names the hashed worker JS and wasm: ${shim}`);
  assert.equal(await sha16(js[1]), js[2]);
  assert.equal(await sha16(wasm[1]), wasm[2]);
});

test('the page starts the worker from the hashed names and loads a trace', async () => {
  const { page, context, requests, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.click('[data-testid="load-sample"]');
  await waitReady(page);
  const own = requests.filter((u) => u.startsWith(srv.url)).map((u) => u.slice(srv.url.length));
  for (const re of [/^worker-[0-9a-f]{16}_loader\.js$/, /^worker-[0-9a-f]{16}\.js$/, /^worker-[0-9a-f]{16}_bg\.wasm$/]) {
    assert.ok(own.some((u) => re.test(u)), `no request matches ${re}: ${own}`);
  }
  assert.ok(!own.some((u) => /^worker(_bg\.wasm|_loader\.js|\.js)$/.test(u)), 'an unhashed worker name was requested');
  assert.deepEqual(errors, []);
  await context.close();
});
