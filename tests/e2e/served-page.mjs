// Checks a page served by scripts/serve.sh (used by scripts/check-serve-beside-test.sh, not a
// test file of its own):
//   node tests/e2e/served-page.mjs fetch ORIGIN   index.html and every asset it names (the page's
//                                                 JS, wasm, CSS, icon, the worker's script and
//                                                 the JS and wasm it names) answer 200
//   node tests/e2e/served-page.mjs load ORIGIN    Chromium opens the page with the bundled
//                                                 sample and reaches `ready`
// Exits non-zero, with the reason on stderr, when the page is broken.
import assert from 'node:assert/strict';

const [mode, origin] = process.argv.slice(2);

async function get(url) {
  const res = await fetch(url, { signal: AbortSignal.timeout(10000) });
  const body = Buffer.from(await res.arrayBuffer());
  assert.equal(res.status, 200, `${url} answered ${res.status}`);
  assert.ok(body.length > 0, `${url} is empty`);
  return body;
}

async function fetchAll(base) {
  const html = (await get(base)).toString('utf8');
  const page = new URL(base);
  const names = new Set();
  // Assets as trunk writes them: href/src attributes, the module import and the wasm path.
  for (const m of html.matchAll(/["']([^"'\s<>]+\.(?:js|wasm|css|svg))["']/g)) names.add(m[1]);
  const worker = html.match(/<meta name="trajscope-worker" content="([^"]+)"/);
  assert.ok(worker, 'index.html names no worker (<meta name="trajscope-worker">)');
  const urls = [...names].map((n) => new URL(n, page).href);
  assert.ok(urls.some((u) => u.endsWith('.wasm')), `index.html names no wasm: ${[...names]}`);
  for (const u of urls) {
    assert.ok(u.startsWith(page.origin + '/'), `asset outside the origin: ${u}`);
    await get(u);
  }
  const workerUrl = new URL(worker[1], page);
  const script = (await get(workerUrl.href)).toString('utf8');
  const inner = [...script.matchAll(/["'](\.\/[^"']+\.(?:js|wasm))["']/g)].map((m) => new URL(m[1], workerUrl).href);
  assert.ok(inner.some((u) => u.endsWith('.wasm')), `the worker script names no wasm: ${script}`);
  for (const u of inner) await get(u);
  return urls.length + 1 + inner.length;
}

async function load(base) {
  const { launch, newPage, waitReady } = await import('./harness.mjs');
  const browser = await launch();
  try {
    const { page, errors } = await newPage(browser);
    await page.goto(new URL('?url=samples/sample.awtl.jsonl', base).href);
    await waitReady(page, 60000);
    assert.equal(await page.textContent('[data-testid="format"]'), 'awtl');
    assert.equal(await page.locator('[data-testid="step"]').count(), 12);
    assert.deepEqual(errors, []);
  } finally {
    await browser.close();
  }
}

try {
  const base = new URL('/', origin).href;
  if (mode === 'fetch') {
    const n = await fetchAll(base);
    if (process.env.VERBOSE) console.error(`served page: ${n} assets answer 200`);
  } else if (mode === 'load') {
    await load(base);
  } else {
    throw new Error('usage: served-page.mjs fetch|load ORIGIN');
  }
} catch (e) {
  console.error(`served page at ${origin}: ${e.message}`);
  process.exit(1);
}
