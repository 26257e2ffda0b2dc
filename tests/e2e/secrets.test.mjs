// Secrets in the downloads, checked in Chromium: traces with planted secrets
// (tests/fixtures/redact/, see its SOURCE.md) show none of them in any file the app writes —
// labels in every style, cases, the brief, the redacted quarantine — and the exact-bytes
// quarantine export keeps them, byte for byte, and says it is exact.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { serveDist, launch, newPage, screenshot, waitReady, FIXTURES } from './harness.mjs';

const PLANTED = join(FIXTURES, 'redact', 'planted-secrets.awtl.jsonl');
const CORRUPT = join(FIXTURES, 'redact', 'planted-corrupt.awtl.jsonl');
const PASSWORDS = join(FIXTURES, 'redact', 'planted-passwords.claude_code.jsonl');

// The planted values, as tests/fixtures/redact/SOURCE.md lists them.
const SECRETS = [
  'Hunter2-Sup3r',
  'sk-proj-Q7fLm2Xr9TbW4KcZ8NvY1HsD6GjP3AeR',
  'ghp_R4nd0mT0k3nV4lu3F0rT3st1ngXyZ12345678',
  'AKIAQ3EXAMPLE7RTY2WP',
  '9dKx7Pq2Lm4Vb8Nz1Rt6Yw3Hs5Jf0Gc2Ae7Ui4Ok',
  'MIIEowIBAAKCAQEA1fakefakefakeQ2w3e4r5t6y7u8i9o0p',
  'sk-ant-api03-Zk8Qw2Er4Ty6Ui8Op0As2Df4Gh6Jk8Lz0Xc2Vb4Nm6-Qw8Er0Ty2AA',
  'sk_live_51Hq8ZxLm3Np7Rt2Vw9Yb4Kc',
  'xoxb-2741869035-7731994421-Gh5Jk2Lm8Np4Qr7St1Vw',
  'AIzaSyB3x7Kq9Lm2Np5Rt8Vw1Yz4Bc6Df9Gh2Jk0',
  'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwYXltZW50cy1ib3QifQ.c2lnbmF0dXJlLWZvci10ZXN0cw',
  'hf_Ab3Cd5Ef7Gh9Ij1Kl3Mn5Op7Qr9St1Uv3Wx',
];
// The quarantined line of planted-corrupt holds a Stripe key and a fine-grained GitHub token.
const CORRUPT_SECRETS = ['sk_live_', 'github_pat_11ABCDEFG'];

let srv, browser;
before(async () => { srv = await serveDist(); browser = await launch(); });
after(async () => { await browser?.close(); await srv?.close(); });

async function open(path) {
  const p = await newPage(browser);
  await p.page.goto(srv.url);
  await p.page.setInputFiles('[data-testid="file-input"]', path);
  await waitReady(p.page);
  return p;
}

async function download(page, testid) {
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`[data-testid="${testid}"]`)]);
  return { name: dl.suggestedFilename(), text: await readFile(await dl.path(), 'utf8') };
}

/** Every planted value and a 10-character piece from its middle: a cut secret must not leak either. */
function pieces(secrets) {
  return secrets.flatMap((s) => [s, s.slice(Math.floor(s.length / 3), Math.floor(s.length / 3) + 10)]);
}

function assertClean(what, text, secrets) {
  assert.ok(text.length > 0, `${what} is not empty`);
  for (const p of pieces(secrets)) assert.ok(!text.includes(p), `${what} leaks ${p}:\n${text}`);
  // Base64 in a record (raw_base64) must not hide one either.
  for (const m of text.matchAll(/"raw_base64":"([^"]*)"/g)) {
    const raw = Buffer.from(m[1], 'base64').toString('utf8');
    for (const p of pieces(secrets)) assert.ok(!raw.includes(p), `${what} leaks ${p} in raw_base64`);
  }
}

/** Marks step `n` critical with a rationale that quotes `quote`; the label is saved at once. */
async function label(page, n, quote) {
  // The label form lives in the Annotate mode (the page opens in Review).
  await page.click('[data-testid="mode-annotate"]');
  await page.waitForSelector('[data-testid="annotate"]');
  await page.click(`[data-testid="step"][data-step="${n}"]`);
  await page.click('[data-testid="mark-critical"]');
  await page.fill('[data-testid="label-annotator"]', 'e2e');
  await page.fill('[data-testid="label-agent"]', 'coder');
  await page.fill('[data-testid="label-rationale"]', `The step ran with ${quote} in it.`);
  await page.waitForFunction(() => /saved in this browser/.test(document.querySelector('[data-testid="label-status"]')?.textContent ?? ''));
}

test('a trace with a planted secret of every kind: no download shows one', async () => {
  const { page, context } = await open(PLANTED);
  // The overview says how many were found and where.
  // The scan follows `ready` (docs/redaction.md): its row says "scanning…" until it is done.
  await page.waitForSelector('[data-testid="secrets"][data-scanned="true"]');
  const secrets = await page.textContent('[data-testid="secrets"]');
  assert.match(secrets, /^\d+ found: .*masked in the exports/);
  assert.ok(Number(secrets.split(' ')[0]) >= SECRETS.length, secrets);
  assert.match(secrets, /github-token at step 2/);

  // Labels in every style, the rationale quoting secrets as a reviewer pasting the step would.
  await label(page, 4, `${SECRETS[6]} and ${SECRETS[1]} against postgres://payments:${SECRETS[0]}@db.internal`);
  for (const id of ['export-labels', 'export-who-and-when', 'export-trajerrbench']) {
    const { text } = await download(page, id);
    assertClean(id, text, SECRETS);
    for (const l of text.trim().split('\n')) JSON.parse(l);
    assert.ok(text.includes('[REDACTED:anthropic-api-key]'), `${id} keeps the rationale, masked`);
  }

  // The brief and the cases: the failed run gives one, quoting the judge and the edit.
  await page.click('[data-testid="mode-review"]');
  await page.waitForSelector('[data-testid="brief-pending"]', { state: 'detached' });
  assert.ok(await page.locator('[data-testid="brief-text"]').count() > 0, 'the failed run has a brief');
  const brief = await download(page, 'export-brief');
  assert.equal(brief.name, 'brief.md');
  assertClean('the brief', brief.text, SECRETS);
  assertClean('the brief as shown', await page.textContent('[data-testid="brief-text"]'), SECRETS);
  assert.ok(await page.locator('[data-testid="case"][data-valid="true"]').count() > 0, 'a valid case');
  const cases = await download(page, 'export-cases');
  assert.equal(cases.name, 'cases.jsonl');
  assertClean('the cases', cases.text, SECRETS);
  for (const l of cases.text.trim().split('\n')) JSON.parse(l);
  await page.locator('[data-testid="secrets"]').scrollIntoViewIfNeeded();
  await screenshot(page, 'secrets-overview');
  await context.close();
});

test('the quarantine export comes exact (secrets kept, byte for byte) or redacted, and says which', async () => {
  const original = (await readFile(CORRUPT)).toString('utf8').split('\n')[1];
  const { page, context } = await open(CORRUPT);
  assert.equal(await page.textContent('[data-testid="quarantine-count"]'), '1');
  assert.match(await page.textContent('[data-testid="export-quarantine"]'), /exact bytes/);
  assert.match(await page.textContent('[data-testid="export-quarantine-redacted"]'), /secrets redacted/);

  const exact = await download(page, 'export-quarantine');
  assert.equal(exact.name, 'quarantine.jsonl');
  const [e] = exact.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(e.line, 2);
  assert.equal(e.redacted, undefined, 'the exact export is not marked redacted');
  assert.equal(Buffer.from(e.raw_base64, 'base64').toString('utf8'), original, 'the exact bytes');
  for (const s of CORRUPT_SECRETS) assert.ok(original.includes(s) && e.raw.includes(s), s);

  const red = await download(page, 'export-quarantine-redacted');
  assert.equal(red.name, 'quarantine.redacted.jsonl');
  const [r] = red.text.trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(r.redacted, true);
  assert.equal(r.line, 2);
  const raw = Buffer.from(r.raw_base64, 'base64').toString('utf8');
  for (const s of CORRUPT_SECRETS) {
    assert.ok(!raw.includes(s) && !r.raw.includes(s) && !red.text.includes(s), `${s} masked`);
  }
  assert.match(raw, /\[REDACTED:stripe-key\]/);
  await context.close();
});

test('plain-text passwords in a real Claude Code session: found, and masked in the labels', async () => {
  const planted = ['Pl4ntedConnStr9', 'Pl4ntedQuoted7', 'Pl4ntedSshpass3', 'Pl4ntedInputKey2', 'Pl4ntedEnvDump5', 'Pl4ntedJsonStr1'];
  const { page, context } = await open(PASSWORDS);
  // The scan follows `ready` (docs/redaction.md): its row says "scanning…" until it is done.
  await page.waitForSelector('[data-testid="secrets"][data-scanned="true"]');
  const secrets = await page.textContent('[data-testid="secrets"]');
  assert.match(secrets, /password at/);
  assert.ok(Number(secrets.split(' ')[0]) >= planted.length, secrets);
  await label(page, 2, `DB_PASSWORD=${planted[4]} and "password": "${planted[3]}"`);
  for (const id of ['export-labels', 'export-who-and-when', 'export-trajerrbench']) {
    const { text } = await download(page, id);
    assert.ok(!text.includes('Pl4nted'), `${id}: ${text}`);
    assert.ok(text.includes('[REDACTED:password]'), id);
  }
  await context.close();
});
