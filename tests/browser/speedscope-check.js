// SPDX-License-Identifier: GPL-2.0-or-later
//
// Loads a file of perfrec-report into speedscope (the npm package's own
// page, dist/release/index.html, in Debian's chromium through
// puppeteer-core) as a person would: its Browse input, then the Sandwich
// view (the 3 key), whose table lists the functions by self weight.  Run
// by tests/test-report-script.sh:
//
//   node speedscope-check.js top INDEX FILE NAME SCREENSHOT
//       speedscope imports FILE (by its content: the file name says
//       nothing of its format), and the sandwich table's first row, the
//       heaviest function by self weight of the profile it opens, is NAME;
//       the screenshot (PNG) of that view is saved
//   node speedscope-check.js hostile INDEX FILE NAME...
//       names with markup: FILE is imported, no dialog opens, no element
//       of theirs is in the page, and each NAME is in the table as its
//       literal text
//
// Both fail on an uncaught exception, a console error, or a request for
// anything but speedscope's own files.  Prints "speedscope-check: ..."
// notes; exits 1 with "speedscope-check: FAIL: ..." on the first failed
// check.
'use strict';
const path = require('path');
const puppeteer = require('puppeteer-core');

const [mode, index, file, ...rest] = process.argv.slice(2);
const chromium = process.env.CHROMIUM || '/usr/bin/chromium';
const dist = 'file://' + path.dirname(path.resolve(index)) + '/';

const { Failure, check, noteAs, failed } = require('./harness');

const note = noteAs('speedscope-check');

async function load(browser) {
	const page = await browser.newPage();
	const problems = [];
	page.on('console', (message) => {
		if (message.type() === 'error')
			problems.push(`console error: ${message.text()}`);
		else if (/^Import/.test(message.text()))
			note(`speedscope says: ${message.text()}`);
	});
	page.on('pageerror', (error) => problems.push('uncaught: ' + error.message));
	page.on('dialog', async (dialog) => {
		problems.push(`a ${dialog.type()} dialog: ${dialog.message()}`);
		await dialog.dismiss();
	});
	await page.setRequestInterception(true);
	page.on('request', (request) => {
		const url = request.url();
		if (url.startsWith(dist) || url.startsWith('data:') || url.startsWith('blob:')) {
			request.continue();
		} else {
			problems.push('a request for ' + url.slice(0, 200));
			request.abort();
		}
	});
	await page.setViewport({ width: 1280, height: 800, deviceScaleFactor: 1 });
	await page.goto(dist + path.basename(index), { waitUntil: 'load' });
	const input = await page.waitForSelector('input[type=file]', { timeout: 30000 });
	await input.uploadFile(path.resolve(file));
	// The toolbar's views appear once a profile is in.
	await page.waitForFunction(() => document.body.innerText.includes('Sandwich'),
				   { timeout: 60000 });
	await page.keyboard.press('3');
	await page.waitForSelector('td[title]', { timeout: 30000 });
	const rows = await page.$$eval('tr', (trs) => trs
		.filter((tr) => tr.querySelector('td[title]'))
		.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => td.textContent)));
	const shown = await page.evaluate(() => document.title);
	note(`${path.basename(file)}: ${rows.length} functions; page "${shown}"; first rows: ` +
	     rows.slice(0, 3).map((r) => `${r[2]} (self ${r[1]})`).join(', '));
	return { page, problems, rows };
}

async function top(browser, name, screenshot) {
	const { page, problems, rows } = await load(browser);
	check(rows.length > 0, 'the sandwich table is empty');
	check(rows[0][2] === name, `the heaviest function is "${rows[0][2]}", not ${name}`);
	await page.screenshot({ path: screenshot });
	check(!problems.length, problems.join('; '));
}

async function hostile(browser, names) {
	const { page, problems, rows } = await load(browser);
	const elements = await page.evaluate(() => document.querySelectorAll('img, b, i, iframe').length +
					     document.querySelectorAll('script').length - 1);
	check(elements === 0, `${elements} elements of the capture's names in the page`);
	const text = rows.map((r) => r[2]);
	for (const name of names)
		check(text.some((t) => t.includes(name)), `"${name}" is not in the table as text`);
	check(!problems.length, problems.join('; '));
	note(`${names.length} hostile names shown as text`);
}

(async () => {
	const browser = await puppeteer.launch({
		executablePath: chromium,
		headless: true,
		args: ['--no-sandbox', '--allow-file-access-from-files', '--disable-gpu'],
	});
	let status = 0;
	try {
		if (mode === 'top')
			await top(browser, rest[0], rest[1]);
		else if (mode === 'hostile')
			await hostile(browser, rest);
		else
			throw new Failure('unknown mode ' + mode);
	} catch (error) {
		status = failed('speedscope-check', error);
	}
	await browser.close();
	process.exit(status);
})();
