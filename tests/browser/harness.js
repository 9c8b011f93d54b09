// The browser checks' own harness, once for all of them: a script's notes
// under its name, the Failure a check throws, and the one FAIL line that
// ends a run (a failed check's text, any other error's stack).
'use strict';

class Failure extends Error {}

function check(ok, text) {
	if (!ok)
		throw new Failure(text);
}

function noteAs(name) {
	return (text) => console.log(name + ': ' + text);
}

// Says why the run failed; its exit status.
function failed(name, error) {
	console.log(name + ': FAIL: ' + (error instanceof Failure ? error.message : error.stack));
	return 1;
}

module.exports = { Failure, check, noteAs, failed };
