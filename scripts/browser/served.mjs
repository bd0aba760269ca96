// Drives Debian's chromium over the viewer served by `view --serve` (see
// check.sh): the site loads from its own origin (its data scripts are
// same-origin), and a page of another origin cannot read the data by
// including data/list.js as a script.
// Usage: node served.mjs URL WANT_EPISODES
import { chromium } from 'playwright-core';
import http from 'node:http';

const [url, want] = process.argv.slice(2);
let failures = 0;
function check(ok, msg) {
  console.log((ok ? 'ok   ' : 'FAIL ') + msg);
  if (!ok) failures++;
}
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });

// The served site, from its own origin: the list and an episode's chunk.
const page = await browser.newPage();
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
await page.goto(url);
await page.waitForSelector('#list tbody tr');
const total = Number((await page.textContent('#count')).replace(/,/g, ''));
check(total === Number(want), `served: the list opens with ${total} episodes (want ${want})`);
await page.click('#list tbody tr:first-child a');
await page.waitForSelector('#calls tbody tr');
check(true, 'served: an episode page loads its timeline (a data chunk)');
check(errors.length === 0, 'served: no page errors' + (errors.length ? ': ' + errors.join('; ') : ''));

// A page of another site, served for real on this machine (at localhost,
// which is not the site 127.0.0.1), includes the data script: the request
// is refused and nothing reaches the page.
const attacker = http.createServer((req, res) => {
  res.writeHead(200, { 'Content-Type': 'text/html' });
  res.end('<!doctype html><title>another site</title>');
});
await new Promise((resolve) => attacker.listen(0, '127.0.0.1', resolve));
const other = await browser.newPage();
const seen = [];
other.on('response', (r) => seen.push(r.status() + ' ' + r.url()));
other.on('requestfailed', (r) => seen.push((r.failure() ? r.failure().errorText : 'failed') + ' ' + r.url()));
await other.goto('http://localhost:' + attacker.address().port + '/');
const got = await other.evaluate((src) => new Promise((resolve) => {
  const s = document.createElement('script');
  s.src = src;
  s.onload = () => resolve(typeof window.LIMBO_DATA === 'object' ? 'read' : 'loaded, no data');
  s.onerror = () => resolve('refused');
  document.head.appendChild(s);
}), url.replace(/\/$/, '') + '/data/list.js');
const list = seen.find((l) => l.endsWith('/data/list.js')) || 'no response';
check(got === 'refused' && !list.startsWith('200 '), `a page of another site including data/list.js: ${got} (${list}; want refused)`);
attacker.close();

await browser.close();
if (failures) {
  console.error(`view --serve browser check: ${failures} failure(s)`);
  process.exit(1);
}
console.log('view --serve browser check passed');
