// Text from a ledger reaches the viewer's page as text (see check.sh): a
// call's arguments holding a newline and an idempotency key holding an OSC
// escape sequence ended by BEL are shown as visible escapes (\n, \x1b,
// \x07), never as control characters, in the episode's call table.
// Usage: node escape.mjs SITE SHOT.png (a site of one episode)
import { chromium } from 'playwright-core';

const [site, shot] = process.argv.slice(2);
let failures = 0;
function check(ok, msg) {
  console.log((ok ? 'ok   ' : 'FAIL ') + msg);
  if (!ok) failures++;
}
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--allow-file-access-from-files'] });
const page = await browser.newPage({ viewport: { width: 1280, height: 700 } });
const errors = [];
page.on('pageerror', (e) => errors.push(String(e)));
await page.goto('file://' + site + '/index.html#ep=0'); // the one episode
await page.waitForSelector('#ep-body table tr[data-seq="0"]');
const args = await page.textContent('#ep-body tr[data-seq="0"] td.args');
const key = await page.textContent('#ep-body tr[data-seq="0"] td.key');
const control = /[\u0000-\u001f\u007f-\u009f]/;
check(!control.test(args) && args.includes('\\n'), `the arguments show their newline escaped: ${JSON.stringify(args)}`);
check(!control.test(key) && key.includes('\\x1b]0;pwned\\x07'), `the key shows its escapes: ${JSON.stringify(key)}`);
const body = await page.textContent('body');
check(!control.test(body.replace(/[\n\t]/g, '')), 'no control character but layout whitespace in the page text');
check(errors.length === 0, `no page errors (${errors.join('; ')})`);
if (shot) {
  await page.locator('#ep-body td.args').first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: shot, fullPage: false });
}
await browser.close();
process.exit(failures ? 1 : 0);
