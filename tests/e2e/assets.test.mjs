// Every built asset is named after its content, the worker's script included, so a deploy never
// serves a cached old file beside a new page. The page and the worker run one wasm module (one
// copy of the core): the page starts the worker from the hashed script it names in
// <meta name="trajscope-worker"> and hands it its compiled module, so the wasm is fetched once.
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
  const unhashed = built.filter((f) => !/-[0-9a-f]{8,16}(_bg\.wasm|\.[a-z]+)$/.test(f));
  assert.deepEqual(unhashed, [], 'built files without a content hash in their name');
  assert.equal(built.filter((f) => f.endsWith('.wasm')).length, 1, `one wasm module for page and worker: ${built}`);
  for (const stale of ['worker.js', 'worker_bg.wasm', 'worker_loader.js']) assert.ok(!all.includes(stale), `${stale} is left`);
});

test('the worker script is named after its bytes and runs the page\'s own module', async () => {
  const html = await readFile(join(DIST, 'index.html'), 'utf8');
  const worker = html.match(/<meta name="trajscope-worker" content="(worker-([0-9a-f]{16})\.js)"/);
  assert.ok(worker, 'index.html names a hashed worker script');
  assert.equal(await sha16(worker[1]), worker[2]);
  const script = await readFile(join(DIST, worker[1]), 'utf8');
  // trunk writes its 64-bit hash without leading zeros: 1 to 16 hex digits.
  const js = script.match(/"\.\/(app-[0-9a-f]{1,16}\.js)"/);
  const wasm = script.match(/"\.\/(app-[0-9a-f]{1,16}_bg\.wasm)"/);
  assert.ok(js && wasm, `the worker imports the page's hashed JS and names its wasm: ${script}`);
  assert.ok(html.includes(js[1]) && html.includes(wasm[1]), 'the page loads the same JS and wasm');
});

test("the wasm imports its glue's functions and exports its closures by short names, and each app file matches its integrity hash", async () => {
  const html = await readFile(join(DIST, 'index.html'), 'utf8');
  const wasmName = html.match(/app-[0-9a-f]{1,16}_bg\.wasm/)[0];
  const bytes = await readFile(join(DIST, wasmName));
  // scripts/short_imports.py: `$0`, `$1`, ... of the module `a` instead of wasm-bindgen's hashed names.
  const module = await WebAssembly.compile(bytes);
  const imports = WebAssembly.Module.imports(module);
  assert.ok(imports.length > 100, `${imports.length} imports`);
  const long = imports.filter((i) => i.module !== 'a' || !/^\$[0-9A-Za-z_]{1,3}$/.test(i.name));
  assert.deepEqual(long, []);
  // And the closures' entry points, named after their Rust types (up to 300 bytes each): `$x0` ...
  const exports = WebAssembly.Module.exports(module).map((e) => e.name);
  assert.ok(exports.includes('$x0') && exports.includes('main'), exports.join(' '));
  assert.deepEqual(exports.filter((e) => e.length > 40), []);
  const links = [...html.matchAll(/href="[^"]*\/(app-[^"]+)"[^>]*integrity="(sha384-[^"]+)"/g)];
  assert.equal(links.length, 2, 'the page preloads the app\'s JS and wasm');
  for (const [, file, integrity] of links) {
    const digest = createHash('sha384').update(await readFile(join(DIST, file))).digest('base64');
    assert.equal(integrity, `sha384-${digest}`, file);
  }
});

test('the page starts the worker from its hashed script, fetches the wasm once and loads a trace', async () => {
  const { page, context, requests, errors } = await newPage(browser);
  await page.goto(srv.url);
  await page.click('[data-testid="load-sample"]');
  await waitReady(page);
  const own = requests.filter((u) => u.startsWith(srv.url)).map((u) => u.slice(srv.url.length));
  assert.ok(own.some((u) => /^worker-[0-9a-f]{16}\.js$/.test(u)), `the worker script was not requested: ${own}`);
  assert.ok(!own.some((u) => /^worker(_bg\.wasm|_loader\.js|\.js)$/.test(u)), 'an unhashed worker name was requested');
  // The worker instantiates the module the page compiled: the wasm is fetched once.
  assert.equal(own.filter((u) => u.endsWith('.wasm')).length, 1, `wasm requests: ${own}`);
  assert.deepEqual(errors, []);
  await context.close();
});
