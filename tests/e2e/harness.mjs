// Shared end-to-end harness: serves the test bundle dist-test/ (scripts/build-web.sh --dist
// dist-test --public-url /trajscope/; never dist/, which serve.sh serves) from a sub-path on 127.0.0.1 (as GitHub Pages
// would) and launches Debian's Chromium through playwright-core (no browser download).
import { createServer } from 'node:http';
import { readFile, stat, mkdir } from 'node:fs/promises';
import { extname, join, normalize, dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const DIST = resolve(ROOT, process.env.TRAJSCOPE_DIST || 'dist-test');
export const FIXTURES = join(ROOT, 'tests', 'fixtures');
export const ARTIFACTS = join(ROOT, 'tests', 'e2e', 'artifacts');
export const BASE_PATH = '/trajscope/';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.json': 'application/json', '.jsonl': 'application/x-ndjson',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon',
};

/** Serves DIST under BASE_PATH on an ephemeral loopback port. */
export async function serveDist() {
  await stat(join(DIST, 'index.html')); // fails clearly when the web build is missing
  const server = createServer(async (req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (!url.pathname.startsWith(BASE_PATH)) { res.writeHead(404); return res.end('not found'); }
    let rel = decodeURIComponent(url.pathname.slice(BASE_PATH.length)) || 'index.html';
    const file = normalize(join(DIST, rel));
    if (!file.startsWith(DIST)) { res.writeHead(403); return res.end(); }
    try {
      const body = await readFile(file);
      res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
      res.end(body);
    } catch {
      res.writeHead(404); res.end('not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { server, origin, url: origin + BASE_PATH, close: () => new Promise((ok) => { server.close(ok); server.closeAllConnections(); }) };
}

/** Launches headless Chromium with the flags this machine needs. */
export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROME_BIN || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/** A new page that records every request and console error. */
export async function newPage(browser, opts = {}) {
  const context = await browser.newContext({ acceptDownloads: true, ...opts });
  const page = await context.newPage();
  const requests = [];
  const errors = [];
  page.on('request', (r) => requests.push(r.url()));
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  return { context, page, requests, errors };
}

export async function screenshot(page, name) {
  await mkdir(ARTIFACTS, { recursive: true });
  const path = join(ARTIFACTS, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** Waits until a file is shown while it is still read (ready, `data-reading`, a step on screen)
 * and returns the text of each named element at that moment (`null` when absent), all taken
 * in one look at the page: on a busy machine the read may end between two separate looks. */
export async function whileReading(page, selectors, timeout = 60000) {
  const seen = await page.waitForFunction((sels) => {
    const app = document.querySelector('.app[data-state="ready"][data-reading]');
    if (!app || !app.querySelector('[data-testid="step"]')) return null;
    const out = {};
    for (const [name, sel] of Object.entries(sels)) out[name] = app.querySelector(sel)?.textContent ?? null;
    return out;
  }, selectors, { timeout });
  return seen.jsonValue();
}

/** The open trajectory readable and every file read whole (a file of many runs is `ready`
 * while it is still read, `data-reading` on the app root: see `early.test.mjs`). */
export async function waitReady(page, timeout = 30000) {
  await page.waitForSelector('.app[data-state="ready"]:not([data-reading])', { timeout });
}

/** Waits until every rendered step card has its text, at grain `g` when one is named: a card
 * is drawn at once and its text fills in when the worker sends it (a grain switch reloads it). */
export async function rowsAt(page, g = null) {
  await page.waitForFunction((g) => {
    const rows = [...document.querySelectorAll('[data-testid="step"]')];
    return rows.length > 0 && rows.every((r) => (g === null || r.dataset.grain === g) && r.dataset.loaded === 'true');
  }, g);
}

/** Unfolds every folded step card, one click at a time, each waited for until its card shows all. */
export async function unfoldAll(page) {
  const folded = '[data-testid="fold-toggle"][aria-expanded="false"]';
  for (let n = await page.locator(folded).count(); n > 0; n--) {
    await page.locator(folded).first().click();
    await page.waitForFunction(([sel, n]) => document.querySelectorAll(sel).length < n, [folded, n]);
  }
}
