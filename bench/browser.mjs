// Browser ingest benchmark, in one run on one file: (a) the wasm core ingesting the File read
// in slices, (b) a plain JavaScript reader calling JSON.parse per line. Each runs in its own
// fresh headless Chromium (Debian's, via playwright-core, flags as in tests/e2e/harness.mjs), so
// each one's peak memory is its own. Peak memory: the renderer process's peak RSS (VmHWM), and
// the JS heap (CDP Performance.getMetrics, sampled) plus the wasm linear memory (which only
// grows, so its final size is its peak).
// Speed is the best of RUNS fresh runs each (default 2; the machine is shared); memory is the
// first run's.
//   node bench/browser.mjs FILE PKG_DIR [RUNS]
import { createServer } from 'node:http';
import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { statSync } from 'node:fs';
import { join, extname, dirname } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { rendererPeak, ARGS } from './chromium.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const [FILE, PKG, RUNS = '2'] = process.argv.slice(2);
if (!FILE || !PKG) { console.error('usage: node bench/browser.mjs FILE PKG_DIR'); process.exit(2); }
const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm' };

const server = createServer(async (req, res) => {
  const path = new URL(req.url, 'http://x').pathname;
  const file = path === '/' ? join(HERE, 'page.html')
    : path.startsWith('/pkg/') ? join(PKG, path.slice(5).replace(/\.\./g, '')) : null;
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
    res.end(body);
  } catch { res.writeHead(404); res.end(); }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const url = `http://127.0.0.1:${server.address().port}/`;

async function run(fn) {
  const dir = await mkdtemp(join(tmpdir(), 'trajscope-bench-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: process.env.CHROME_BIN || '/usr/bin/chromium', headless: true, args: ARGS,
  });
  try {
    const page = context.pages()[0] || await context.newPage();
    await page.goto(url);
    await page.waitForFunction(() => window.ready === true);
    await page.setInputFiles('#file', FILE);
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    let heapPeak = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        try {
          const { metrics } = await cdp.send('Performance.getMetrics');
          heapPeak = Math.max(heapPeak, metrics.find((m) => m.name === 'JSHeapUsedSize')?.value || 0);
        } catch { /* page busy */ }
        await new Promise((ok) => setTimeout(ok, 50));
      }
    })();
    const result = await page.evaluate(`window.${fn}()`);
    sampling = false;
    await sampler;
    const { metrics } = await cdp.send('Performance.getMetrics');
    heapPeak = Math.max(heapPeak, metrics.find((m) => m.name === 'JSHeapUsedSize')?.value || 0);
    return { ...result, heapPeak, rendererPeak: await rendererPeak(dir) };
  } finally {
    await context.close();
    await rm(dir, { recursive: true, force: true });
  }
}

const MB = 1e6;
const MiB = 1024 * 1024;
const size = statSync(FILE).size;
async function best(fn) {
  const first = await run(fn);
  let seconds = first.seconds;
  for (let i = 1; i < Number(RUNS); i++) seconds = Math.min(seconds, (await run(fn)).seconds);
  return { ...first, seconds };
}
const wasm = await best('benchWasm');
const js = await best('benchJs');
server.close();

const rate = (r) => r.bytes / MB / r.seconds;
const wasmPeak = wasm.heapPeak + wasm.wasmMemory;
console.log(`file: ${FILE} (${(size / MB).toFixed(1)} MB); speed: best of ${RUNS} fresh runs each`);
console.log(`wasm core ingest   : ${rate(wasm).toFixed(1).padStart(7)} MB/s  (${wasm.seconds.toFixed(3)} s; ${wasm.summary.steps} steps in ${wasm.summary.trajectories} trajectories, ${wasm.summary.stats.lines_quarantined} quarantined)`);
console.log(`JS JSON.parse/line : ${rate(js).toFixed(1).padStart(7)} MB/s  (${js.seconds.toFixed(3)} s; ${js.parsed} lines parsed, ${js.failed} failed)`);
console.log(`ratio wasm / JS    : ${(rate(wasm) / rate(js)).toFixed(2)}x`);
console.log(`wasm peak memory   : ${(wasmPeak / MiB).toFixed(0)} MiB = JS heap peak ${(wasm.heapPeak / MiB).toFixed(0)} MiB + wasm memory ${(wasm.wasmMemory / MiB).toFixed(0)} MiB  -> ${(wasmPeak / size).toFixed(2)}x the file size (limit 2x)`);
console.log(`renderer peak RSS  : wasm run ${(wasm.rendererPeak / MiB).toFixed(0)} MiB (${(wasm.rendererPeak / size).toFixed(2)}x the file), JS run ${(js.rendererPeak / MiB).toFixed(0)} MiB`);
