/*
 * The flame graph page of perfrec-report --format=html (flame-html.c
 * writes this file into the page after the data; the data's format is
 * described there).
 *
 * Drawn on one canvas: a DOM element a frame would not stay responsive
 * with the hundreds of thousands of nodes of a system-wide capture.  Each
 * draw lays out only the frames at least MIN_WIDTH pixels wide (children
 * are sorted heaviest first, so the first narrow child ends its row), and
 * only those are hit-tested.
 *
 * Names come from the profiled machine and are untrusted: they reach the
 * page through textContent, option.text and fillText only.
 *
 * Against a baseline (a profile's baseline) the page is a differential
 * flame graph: widths are this profile's, colours the change of each
 * frame's share against the baseline's (diffColor(), as
 * flame_diff_color() in flame-common.c), and the tooltip gives both
 * shares.  Each tree carries the baseline's period of every node, the
 * inverted one too.
 *
 * A capture with off-CPU records gives the page several profiles (CPU,
 * off-CPU, wall): one set of names, a tree each.  The switch above the
 * chart (or the p key) shows another without a reload: its tree (built
 * at its first showing), header, process list, search share and units.
 * A profile's unit is "samples" (the CPU's: sample counts shown, widths
 * by period) or "ns" (blocked or wall time, shown as time).
 */
'use strict';
(function () {
	const ROW = 16;			/* a frame's height with its gap, CSS pixels */
	const MIN_WIDTH = 1;		/* narrower frames are not drawn */
	const FONT = '12px ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace';
	const KERNEL = 1, INLINED = 2, RESOLVED = 4, COMM = 8;
	const MATCH_COLOR = '#d946ef';

	const started = performance.now();
	const $ = (id) => document.getElementById(id);
	const data = JSON.parse($('flame-data').textContent);
	const strings = data.strings;
	const symbols = data.symbols;	/* name, dso, srcline, flags, offset */
	const symbolCount = symbols.length / 5;
	const profiles = data.profiles;
	/* The root's children: processes, or units, containers, cgroups (--sort). */
	const firstLevel = typeof data.first_level === 'string' ? data.first_level : 'Process';
	const parsed = performance.now();
	/* The profile shown, and its baseline (null: not a differential graph). */
	let P = null, diff = null;

	const canvas = $('flame');
	const chart = $('chart');
	const tip = $('tip');
	const ctx = canvas.getContext('2d');

	/* ---- trees ---------------------------------------------------- */

	/*
	 * A tree is typed arrays indexed by node (0 is the root), and each
	 * node's children as a range first..first+count of kids, heaviest
	 * first.
	 */
	function newTree(n) {
		return {
			n: n,
			sym: new Int32Array(n), parent: new Int32Array(n), depth: new Int32Array(n),
			total: new Float64Array(n), self: new Float64Array(n),
			samples: new Float64Array(n), selfSamples: new Float64Array(n),
			base: new Float64Array(n), baseSelf: new Float64Array(n),
			first: new Int32Array(n), count: new Int32Array(n),
			kids: new Int32Array(Math.max(n - 1, 0)), maxDepth: 0,
		};
	}

	/*
	 * The symbols a differential page's nodes use: the baseline's only
	 * stacks come with symbols of their own, equal in content to this
	 * profile's; each is mapped to the first of its kind, so that the
	 * inverted tree merges their stacks.
	 */
	function canonicalSymbols() {
		const canon = new Int32Array(symbolCount);
		const seen = new Map();
		for (let s = 0; s < symbolCount; s++) {
			const o = s * 5;
			const key = [str(symbols[o]), str(symbols[o + 1]), str(symbols[o + 2]),
				     symbols[o + 3], str(symbols[o + 4])].join('\u0000');
			const first = seen.get(key);
			canon[s] = first === undefined ? s : first;
			if (first === undefined)
				seen.set(key, s);
		}
		return canon;
	}

	let canonical = null;

	/* A profile's embedded tree: stride numbers a node, preorder, with its child count. */
	function callerTree(p) {
		const pdiff = p.baseline || null;
		const STRIDE = pdiff ? 8 : 6;
		const nodes = p.nodes;
		const n = nodes.length / STRIDE;
		const t = newTree(n);
		const open = [], left = [];
		const canon = pdiff ? canonical || (canonical = canonicalSymbols()) : null;
		let next = 0;

		for (let i = 0; i < n; i++) {
			const o = i * STRIDE;

			while (left.length && left[left.length - 1] === 0) {
				open.pop();
				left.pop();
			}
			t.sym[i] = canon && nodes[o] >= 0 ? canon[nodes[o]] : nodes[o];
			t.total[i] = nodes[o + 2];
			t.self[i] = nodes[o + 3];
			t.samples[i] = nodes[o + 4];
			t.selfSamples[i] = nodes[o + 5];
			if (pdiff) {
				t.base[i] = nodes[o + 6];
				t.baseSelf[i] = nodes[o + 7];
			}
			if (open.length) {
				const p = open[open.length - 1];

				t.parent[i] = p;
				t.depth[i] = t.depth[p] + 1;
				t.kids[t.first[p] + t.count[p]++] = i;
				left[left.length - 1]--;
				if (t.depth[i] > t.maxDepth)
					t.maxDepth = t.depth[i];
			} else {
				t.parent[i] = -1;
			}
			t.first[i] = next;
			next += nodes[o + 1];
			open.push(i);
			left.push(nodes[o + 1]);
		}
		return t;
	}

	/*
	 * The inverted (callee) tree, as perfrec-report --view=tree --callee
	 * builds it: per process, each stack leaf first.  A node's self
	 * samples in the caller tree are the stacks that end there, so each
	 * such node gives one stack: its path up to its process, walked from
	 * the node up.  Like the C tree, a node's self is the stacks whose
	 * leaf it is (the level right below the process).  The baseline's
	 * self periods give its stacks the same way (the page has all of
	 * them, those this profile lacks with no width).
	 */
	function invertedTree(c) {
		const S = symbolCount + 1;
		const index = new Map();
		const sym = [-1], parent = [-1], depth = [0];
		const total = [c.total[0]], self = [0], samples = [c.samples[0]], selfSamples = [0];
		const base = [c.base[0]], baseSelf = [0];
		const top = new Int32Array(c.n);

		function child(p, s) {
			const key = p * S + s + 1;
			let k = index.get(key);

			if (k === undefined) {
				k = sym.length;
				index.set(key, k);
				sym.push(s);
				parent.push(p);
				depth.push(depth[p] + 1);
				total.push(0);
				self.push(0);
				samples.push(0);
				selfSamples.push(0);
				base.push(0);
				baseSelf.push(0);
			}
			return k;
		}

		for (let i = 1; i < c.n; i++) {
			const p = c.parent[i];

			if (p === 0) {
				top[i] = child(0, c.sym[i]);
				continue;
			}
			top[i] = top[p];
			const w = c.self[i], ws = c.selfSamples[i], bw = c.baseSelf[i];
			if (!w && !ws && !bw)
				continue;
			let k = top[i];
			total[k] += w;
			samples[k] += ws;
			base[k] += bw;
			for (let m = i; c.depth[m] >= 2; m = c.parent[m]) {
				k = child(k, c.sym[m]);
				total[k] += w;
				samples[k] += ws;
				base[k] += bw;
				if (m === i) {
					self[k] += w;
					selfSamples[k] += ws;
					baseSelf[k] += bw;
				}
			}
		}
		const t = newTree(sym.length);
		t.sym.set(sym);
		t.parent.set(parent);
		t.depth.set(depth);
		t.total.set(total);
		t.self.set(self);
		t.samples.set(samples);
		t.selfSamples.set(selfSamples);
		t.base.set(base);
		t.baseSelf.set(baseSelf);
		for (let i = 1; i < t.n; i++) {
			t.count[t.parent[i]]++;
			if (t.depth[i] > t.maxDepth)
				t.maxDepth = t.depth[i];
		}
		for (let i = 0, next = 0; i < t.n; i++) {
			t.first[i] = next;
			next += t.count[i];
			t.count[i] = 0;
		}
		for (let i = 1; i < t.n; i++)
			t.kids[t.first[t.parent[i]] + t.count[t.parent[i]]++] = i;
		const heaviest = (a, b) => t.total[b] - t.total[a] || t.sym[a] - t.sym[b];
		for (let i = 0; i < t.n; i++)
			if (t.count[i] > 1)
				t.kids.subarray(t.first[i], t.first[i] + t.count[i]).sort(heaviest);
		return t;
	}

	/* A profile's trees, the caller-first one built at its first showing. */
	function trees(p) {
		if (!p.trees) {
			p.trees = { caller: callerTree(p), inverted: null };
			p.nodes = null;
		}
		return p.trees;
	}

	const shown = Math.min(Math.max(Number(data.shown) || 0, 0), profiles.length - 1);
	P = profiles[shown];
	diff = P.baseline || null;
	trees(P);
	const built = performance.now();
	let invertMs = 0;

	const state = { inverted: !!data.inverted, zoom: 0, match: null };

	function tree() {
		const t = trees(P);
		if (state.inverted && !t.inverted) {
			const t0 = performance.now();
			t.inverted = invertedTree(t.caller);
			invertMs = performance.now() - t0;
		}
		return state.inverted ? t.inverted : t.caller;
	}

	/* ---- names and colours --------------------------------------- */

	function str(i) {
		return i >= 0 ? strings[i] : null;
	}

	function nameOf(t, n) {
		return n === 0 ? 'all' : str(symbols[t.sym[n] * 5]);
	}

	/* As flame_color() in flame-common.c, so the SVG looks the same. */
	function hsl(hue, s, l) {
		const a = s * Math.min(l, 1 - l);
		const channel = (shift) => {
			const k = (hue / 30 + shift) % 12;
			const v = Math.max(-1, Math.min(k - 3, 9 - k, 1));
			return Math.floor((l - a * v) * 255 + 0.5);
		};
		return 'rgb(' + channel(0) + ',' + channel(8) + ',' + channel(4) + ')';
	}

	const encoder = new TextEncoder();
	const colors = new Array(symbolCount), muted = new Array(symbolCount);

	function colorOf(s, mute) {
		if (s < 0)
			return '#c8ccd4';
		if (colors[s] === undefined) {
			const name = str(symbols[s * 5]), flags = symbols[s * 5 + 3];
			let h = 2166136261;
			for (const b of encoder.encode(name))
				h = Math.imul(h ^ b, 16777619) >>> 0;
			let hue, sat, light;
			if (flags & COMM) {
				hue = 210; sat = 0.15; light = 0.70 + (h % 8) / 100;
			} else if (name.charAt(0) === '[' || name === '--') {
				hue = 0; sat = 0; light = 0.72 + (h % 6) / 100;
			} else if (flags & KERNEL) {
				hue = 195 + h % 30; sat = 0.50 + ((h >>> 8) % 20) / 100; light = 0.62 + ((h >>> 16) % 12) / 100;
			} else {
				hue = 5 + h % 50; sat = 0.75 + ((h >>> 8) % 20) / 100; light = 0.55 + ((h >>> 16) % 12) / 100;
			}
			colors[s] = hsl(hue, sat, light);
			muted[s] = hsl(hue, sat * 0.15, 0.82);
		}
		return mute ? muted[s] : colors[s];
	}

	/*
	 * A differential frame's colour, as flame_diff_color(): the change of
	 * its share (each side's of its own total) from light grey to red for
	 * growth, to blue for shrinkage, full at diff.scale points; full red
	 * for a stack the baseline does not have.
	 */
	const NEUTRAL = [224, 224, 224], GROWN = [232, 62, 48], SHRUNK = [52, 108, 232];

	function share(part, whole) {
		return whole ? 100 * part / whole : 0;
	}

	function delta(t, n) {
		return share(t.total[n], P.total_period) - share(t.base[n], diff.total_period);
	}

	function diffColor(t, n) {
		const d = delta(t, n);
		let k = Math.min(Math.abs(d) / diff.scale, 1), end = d < 0 ? SHRUNK : GROWN;
		if (!t.base[n]) {
			k = 1;
			end = GROWN;
		}
		const c = (i) => Math.floor(NEUTRAL[i] + (end[i] - NEUTRAL[i]) * k + 0.5);
		return 'rgb(' + c(0) + ',' + c(1) + ',' + c(2) + ')';
	}

	/* "19.33% (baseline 57.22%, -37.89)", as flame_diff_text(). */
	function diffText(t, n) {
		const now = percent(t.total[n], P.total_period);
		if (!t.base[n])
			return now + ' (new: not in the baseline)';
		const d = delta(t, n);
		return now + ' (baseline ' + percent(t.base[n], diff.total_period) + ', ' +
			(d >= 0 ? '+' : '') + d.toFixed(2) + ')';
	}

	/* ---- layout and drawing -------------------------------------- */

	/*
	 * The frames of the last draw: node, x, width, depth, and whether it
	 * is an ancestor of the zoomed frame (drawn full width, faded).  Per
	 * depth in x order (a preorder visits each row left to right), for
	 * hit-testing by binary search.
	 */
	let frames = { node: [], x: [], w: [], depth: [], faded: [], byDepth: [], rows: 0, clipped: false };
	let charWidth = 7.2;
	let lastDrawMs = 0;

	function layout(t, width) {
		const f = { node: [], x: [], w: [], depth: [], faded: [], byDepth: [], rows: 0, clipped: false };
		const dpr = window.devicePixelRatio || 1;
		/* A canvas taller than 32767 device pixels is not drawn at all. */
		const maxRows = Math.floor(32000 / (ROW * dpr));
		const add = (n, x, w, faded) => {
			const d = t.depth[n], i = f.node.length;
			f.node.push(n);
			f.x.push(x);
			f.w.push(w);
			f.depth.push(d);
			f.faded.push(faded);
			(f.byDepth[d] || (f.byDepth[d] = [])).push(i);
			if (d + 1 > f.rows)
				f.rows = d + 1;
		};
		const chain = [];
		for (let a = t.parent[state.zoom]; a !== -1; a = t.parent[a])
			chain.push(a);
		for (let k = chain.length - 1; k >= 0; k--)
			add(chain[k], 0, width, true);
		const scale = width / (t.total[state.zoom] || 1);
		const stack = [state.zoom], xs = [0];
		while (stack.length) {
			const n = stack.pop(), x = xs.pop();
			add(n, x, n === state.zoom ? width : t.total[n] * scale, false);
			if (t.depth[n] + 1 >= maxRows) {
				f.clipped = f.clipped || t.count[n] > 0;
				continue;
			}
			const first = t.first[n], end = first + t.count[n];
			let last = first;
			while (last < end && t.total[t.kids[last]] * scale >= MIN_WIDTH)
				last++;
			/* Pushed right to left, so that the leftmost is laid out first. */
			let right = x;
			for (let k = first; k < last; k++)
				right += t.total[t.kids[k]] * scale;
			for (let k = last - 1; k >= first; k--) {
				right -= t.total[t.kids[k]] * scale;
				stack.push(t.kids[k]);
				xs.push(right);
			}
		}
		return f;
	}

	/* The name cut to fit chars characters, with an ellipsis. */
	function fit(name, chars) {
		if (name.length <= chars)
			return name;
		return chars > 1 ? name.slice(0, chars - 1) + '\u2026' : '';
	}

	function frameTop(depth) {
		return state.inverted ? depth * ROW : (frames.rows - 1 - depth) * ROW;
	}

	function draw() {
		const begin = performance.now();
		const t = tree();
		const width = Math.max(chart.clientWidth, 100);
		const dpr = window.devicePixelRatio || 1;

		frames = layout(t, width);
		const height = Math.max(frames.rows, 1) * ROW;
		canvas.width = Math.round(width * dpr);
		canvas.height = Math.round(height * dpr);
		canvas.style.height = height + 'px';
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, width, height);
		ctx.font = FONT;
		ctx.textBaseline = 'middle';
		charWidth = ctx.measureText('mmmmmmmmmm').width / 10 || 7.2;
		const matching = state.match !== null;
		for (let i = 0; i < frames.node.length; i++) {
			const n = frames.node[i], x = frames.x[i], w = frames.w[i];
			const y = frameTop(frames.depth[i]);
			const s = n === 0 ? -1 : t.sym[n];
			const hit = matching && s >= 0 && state.match[s];

			ctx.globalAlpha = frames.faded[i] ? 0.55 : 1;
			ctx.fillStyle = hit ? MATCH_COLOR : diff && !matching ? diffColor(t, n) : colorOf(s, matching);
			ctx.fillRect(x, y, Math.max(w - 1, 0.5), ROW - 1);
			const chars = Math.floor((w - 6) / charWidth);
			if (chars >= 3) {
				ctx.fillStyle = hit ? '#fff' : '#111';
				ctx.fillText(fit(nameOf(t, n), chars), x + 3, y + ROW / 2);
			}
		}
		ctx.globalAlpha = 1;
		lastDrawMs = performance.now() - begin;
		showStatus(t);
	}

	/*
	 * Scrolls the zoomed frame into view: with deep stacks the chart is
	 * taller than the window, and the root of a flame graph is at its
	 * bottom, where nobody would look first.  Called after the draws a
	 * person asked for (load, zoom, inversion), not while typing a search.
	 */
	function reveal() {
		const i = frames.node.indexOf(state.zoom);
		if (i < 0)
			return;
		const top = canvas.getBoundingClientRect().top + window.scrollY + frameTop(frames.depth[i]);
		const bar = $('toolbar').offsetHeight;
		const want = state.inverted ? top - bar - 2 * ROW : top + 3 * ROW - window.innerHeight;
		const now = window.scrollY;
		/* Only when it is out of sight: a visible frame does not move. */
		if (top < now + bar || top + ROW > now + window.innerHeight)
			window.scrollTo(0, Math.max(want, 0));
	}

	/* ---- status, search ------------------------------------------ */

	function percent(part, whole) {
		return whole > 0 ? (100 * part / whole).toFixed(2) + '%' : '0%';
	}

	/* Nanoseconds as people read them: "1.234 s", "12.34 ms", "5.6 µs". */
	function duration(ns) {
		if (ns >= 1e9)
			return (ns / 1e9).toFixed(3) + ' s';
		if (ns >= 1e6)
			return (ns / 1e6).toFixed(2) + ' ms';
		if (ns >= 1e3)
			return (ns / 1e3).toFixed(1) + ' \u00b5s';
		return ns + ' ns';
	}

	/* What a weight is in the profile shown: samples, or time. */
	function amount(period, samples) {
		return P.unit === 'ns' ? duration(period) : samples + ' samples';
	}

	function showStatus(t) {
		const parts = [];
		if (!P.total_period)
			parts.push(P.unit === 'ns' ? 'No ' + P.label + ' time.' : 'No samples.');
		if (state.zoom !== 0) {
			const path = [];
			for (let a = state.zoom; a > 0; a = t.parent[a])
				path.push(nameOf(t, a));
			path.reverse();
			const shown = path.length > 6 ? [path[0], '\u2026'].concat(path.slice(-4)) : path;
			parts.push('Zoomed to ' + shown.join(' \u203a ') + ' (' +
				   percent(t.total[state.zoom], t.total[0]) + '): click a faded frame or Esc to zoom out.');
		}
		if (frames.clipped)
			parts.push('Deeper frames are not drawn: zoom in to see them.');
		if (P.hidden_nodes)
			parts.push(P.hidden_nodes + ' subtrees under --percent-limit ' + data.percent_limit +
				   '% (' + percent(P.hidden_period, P.total_period) +
				   (P.unit === 'ns' ? ' of the time' : ' of the samples') + ') are not in this page.');
		$('status').textContent = parts.join(' ');
	}

	/* Smart case: a query without capitals ignores case. */
	function matcher(text, regex) {
		if (regex) {
			const re = new RegExp(text);
			return (name) => re.test(name);
		}
		if (text === text.toLowerCase())
			return (name) => name.toLowerCase().includes(text);
		return (name) => name.includes(text);
	}

	/*
	 * The share of the matches counts each sample once: the topmost
	 * matching frames of the tree, whose subtrees hold every match below
	 * them.  The same in both trees: each is all the stacks.
	 */
	function matched(t) {
		let period = 0, samples = 0;
		const stack = [0];
		while (stack.length) {
			const n = stack.pop();
			if (n !== 0 && state.match[t.sym[n]]) {
				period += t.total[n];
				samples += t.samples[n];
				continue;
			}
			for (let k = t.first[n]; k < t.first[n] + t.count[n]; k++)
				stack.push(t.kids[k]);
		}
		return { period: period, samples: samples, share: P.total_period ? 100 * period / P.total_period : 0 };
	}

	let lastMatch = null;

	function search() {
		const input = $('search'), text = input.value;
		input.classList.remove('bad');
		state.match = null;
		lastMatch = null;
		if (text !== '') {
			let test;
			try {
				test = matcher(text, $('regex').checked);
			} catch (e) {
				input.classList.add('bad');
				$('match').textContent = 'not a regular expression';
				draw();
				return;
			}
			state.match = new Uint8Array(symbolCount);
			for (let s = 0; s < symbolCount; s++)
				state.match[s] = test(str(symbols[s * 5])) ? 1 : 0;
			lastMatch = matched(tree());
		}
		showMatch();
		draw();
	}

	function showMatch() {
		$('match').textContent = lastMatch ? 'Matched: ' + lastMatch.share.toFixed(2) + '% (' +
			amount(lastMatch.period, lastMatch.samples) + ')' : '';
	}

	/* ---- interaction --------------------------------------------- */

	function hitTest(mx, my) {
		if (!frames.rows)
			return -1;
		const row = Math.floor(my / ROW);
		const depth = state.inverted ? row : frames.rows - 1 - row;
		const list = frames.byDepth[depth];
		if (!list)
			return -1;
		let lo = 0, hi = list.length - 1, found = -1;
		while (lo <= hi) {
			const mid = (lo + hi) >> 1;
			if (frames.x[list[mid]] <= mx) {
				found = list[mid];
				lo = mid + 1;
			} else {
				hi = mid - 1;
			}
		}
		return found >= 0 && mx < frames.x[found] + frames.w[found] ? found : -1;
	}

	function line(parent, text, cls) {
		const div = document.createElement('div');
		div.textContent = text;
		if (cls)
			div.className = cls;
		parent.appendChild(div);
	}

	function showTip(i, cx, cy) {
		const t = tree(), n = frames.node[i];
		const s = n === 0 ? -1 : t.sym[n];
		const flags = s >= 0 ? symbols[s * 5 + 3] : 0;
		let label = nameOf(t, n);
		if (flags & KERNEL)
			label += ' [kernel]';
		if (flags & INLINED)
			label += ' (inlined)';
		tip.replaceChildren();
		line(tip, label, 'name');
		if (flags & COMM) {
			line(tip, firstLevel, 'more');
		} else if (s >= 0) {
			const dso = str(symbols[s * 5 + 1]);
			const offset = str(symbols[s * 5 + 4]);
			if (dso !== null)
				line(tip, 'DSO: ' + dso + (offset !== null && !(flags & RESOLVED) ? ' +' + offset : ''));
			const source = str(symbols[s * 5 + 2]);
			if (source !== null)
				line(tip, 'Source: ' + source);
		}
		if (P.unit === 'ns')
			line(tip, P.label + ': ' + duration(t.total[n]) + ' (' + percent(t.total[n], t.total[0]) + ')');
		else
			line(tip, 'Samples: ' + t.samples[n] + ' (' + percent(t.total[n], t.total[0]) + ')');
		if (diff)
			line(tip, 'Share: ' + diffText(t, n));
		if (t.self[n] > 0)
			line(tip, 'Self: ' + (P.unit === 'ns' ? duration(t.self[n]) : t.selfSamples[n]) +
			     ' (' + percent(t.self[n], t.total[0]) + ')', 'more');
		if (state.zoom !== 0 && !frames.faded[i])
			line(tip, percent(t.total[n], t.total[state.zoom]) + ' of the zoomed frame', 'more');
		tip.hidden = false;
		const room = document.documentElement.clientWidth;
		const left = Math.min(cx + 14, room - tip.offsetWidth - 4);
		const below = cy + 18 + tip.offsetHeight < window.innerHeight;
		tip.style.left = Math.max(left, 0) + 'px';
		tip.style.top = (below ? cy + 18 : cy - 10 - tip.offsetHeight) + 'px';
	}

	canvas.addEventListener('mousemove', (e) => {
		const i = hitTest(e.offsetX, e.offsetY);
		if (i < 0)
			tip.hidden = true;
		else
			showTip(i, e.clientX, e.clientY);
	});
	canvas.addEventListener('mouseleave', () => {
		tip.hidden = true;
	});
	canvas.addEventListener('click', (e) => {
		const i = hitTest(e.offsetX, e.offsetY);
		if (i < 0)
			return;
		state.zoom = frames.node[i];
		tip.hidden = true;
		draw();
		reveal();
	});

	function reset() {
		state.zoom = 0;
		$('process').value = '-1';
		draw();
		reveal();
	}

	/* The process's node in the current tree: the root's child of its symbol. */
	function zoomToProcess(s) {
		const t = tree();
		state.zoom = 0;
		for (let k = t.first[0]; k < t.first[0] + t.count[0]; k++)
			if (t.sym[t.kids[k]] === s)
				state.zoom = t.kids[k];
		draw();
		reveal();
	}

	function setInverted(on) {
		state.inverted = on;
		$('invert').checked = on;
		const s = Number($('process').value);
		if (state.match !== null)
			lastMatch = matched(tree());
		if (s >= 0)
			zoomToProcess(s);
		else
			reset();
	}

	$('reset').addEventListener('click', reset);
	$('invert').addEventListener('change', (e) => setInverted(e.target.checked));
	$('process').addEventListener('change', (e) => {
		const s = Number(e.target.value);
		if (s >= 0)
			zoomToProcess(s);
		else
			reset();
	});
	let pending = 0;
	$('search').addEventListener('input', () => {
		clearTimeout(pending);
		pending = setTimeout(search, 120);
	});
	$('search').addEventListener('keydown', (e) => {
		if (e.key === 'Enter') {
			clearTimeout(pending);
			search();
		} else if (e.key === 'Escape') {
			e.target.value = '';
			search();
			e.target.blur();
		}
	});
	$('regex').addEventListener('change', search);
	document.addEventListener('keydown', (e) => {
		const typing = e.target instanceof HTMLInputElement && e.target.type !== 'checkbox' ||
			       e.target instanceof HTMLSelectElement;
		if ((e.key === 'f' && (e.ctrlKey || e.metaKey)) || (e.key === '/' && !typing)) {
			e.preventDefault();
			$('search').focus();
			$('search').select();
		} else if (!typing && e.key === 'Escape') {
			reset();
		} else if (!typing && e.key === 'i' && !e.ctrlKey && !e.metaKey && !e.altKey) {
			setInverted(!state.inverted);
		} else if (!typing && e.key === 'p' && !e.ctrlKey && !e.metaKey && !e.altKey &&
			   profiles.length > 1) {
			setProfile((profiles.indexOf(P) + 1) % profiles.length);
		}
	});
	let resizing = 0;
	window.addEventListener('resize', () => {
		clearTimeout(resizing);
		resizing = setTimeout(draw, 100);
	});

	/* ---- the header, the process list, the switch, the first draw - */

	$('first-level').textContent = firstLevel;

	/* The facts of the profile shown: its totals are in its unit. */
	function showFacts() {
		const facts = $('facts');
		facts.replaceChildren();
		for (const fact of P.facts) {
			const div = document.createElement('div');
			const dt = document.createElement('dt');
			const dd = document.createElement('dd');
			dt.textContent = fact[0];
			dd.textContent = fact[1];
			if (fact[2])
				div.className = 'warn';
			div.append(dt, dd);
			facts.appendChild(div);
		}
		const kind = (diff ? 'perfrec differential flame graph' : 'perfrec flame graph') +
			     (profiles.length > 1 ? ': ' + P.label : '');
		$('title').textContent = kind;
		if (P.facts.length && P.facts[0][0] === 'Host')
			document.title = kind + (profiles.length > 1 ? ', ' : ': ') + P.facts[0][1];
	}

	/* The root's children of the profile shown, heaviest first. */
	function fillProcesses() {
		const select = $('process');
		const c = trees(P).caller;
		while (select.options.length > 1)
			select.remove(1);
		select.value = '-1';
		for (let k = c.first[0]; k < c.first[0] + c.count[0]; k++) {
			const n = c.kids[k], option = document.createElement('option');
			/* A process only the baseline has has no frame to zoom to. */
			if (!c.total[n])
				continue;
			option.value = String(c.sym[n]);
			option.text = nameOf(c, n) + ' (' + percent(c.total[n], c.total[0]) + ')';
			select.appendChild(option);
		}
	}

	/*
	 * Another profile of the capture: its header, processes, search
	 * share and tree, zoomed out; the inversion and the search stay.
	 */
	function setProfile(i) {
		if (profiles[i] === P)
			return;
		P = profiles[i];
		diff = P.baseline || null;
		state.zoom = 0;
		tip.hidden = true;
		for (const button of $('profiles').querySelectorAll('button'))
			button.setAttribute('aria-pressed', String(Number(button.dataset.index) === i));
		showFacts();
		fillProcesses();
		if (state.match !== null)
			lastMatch = matched(tree());
		showMatch();
		draw();
		reveal();
	}

	showFacts();
	if (diff) {
		/* What the colours mean, in them. */
		const legend = $('legend');
		const swatch = (color, text) => {
			const span = document.createElement('span');
			span.className = 'swatch';
			span.style.background = color;
			legend.append(span, text);
		};
		const rgb = (c) => 'rgb(' + c.join(',') + ')';
		legend.append('Widths are this profile\'s; colours the change of each frame\'s share against the baseline\'s, ' +
			      'full at \u00b1' + diff.scale + ' points: ');
		swatch(rgb(GROWN), ' grew (or is new), ');
		swatch(rgb(SHRUNK), ' shrank, ');
		swatch(rgb(NEUTRAL), ' the same. ');
		legend.append(diff.gone_nodes ? 'Stacks only in the baseline (' +
			      percent(diff.gone_period, diff.total_period) + ' of it) have no width: not drawn.' :
			      'Every stack of the baseline is here.');
		legend.hidden = false;
	}
	/* The switch, only where there is something to switch to. */
	if (profiles.length > 1) {
		const group = $('profiles');
		profiles.forEach((p, i) => {
			const button = document.createElement('button');
			button.type = 'button';
			button.dataset.index = String(i);
			button.dataset.kind = p.kind;
			button.textContent = p.label;
			button.title = p.label + ' profile (p: the next one)';
			button.setAttribute('aria-pressed', String(p === P));
			button.addEventListener('click', () => setProfile(i));
			group.appendChild(button);
		});
		group.hidden = false;
	}
	fillProcesses();
	$('invert').checked = state.inverted;
	draw();
	reveal();

	/* For tests and the curious: what is drawn, and how long it took. */
	window.perfrecFlame = {
		timings: { parse: parsed - started, build: built - parsed, firstDraw: lastDrawMs },
		nodeCount: () => tree().n,
		lastDrawMs: () => lastDrawMs,
		invertMs: () => invertMs,
		inverted: () => state.inverted,
		matched: () => lastMatch,
		profile: () => ({ kind: P.kind, label: P.label, unit: P.unit,
				  totalPeriod: P.total_period, totalSamples: P.total_samples }),
		profiles: () => profiles.map((p) => p.kind),
		frames: () => frames.node.map((n, i) => ({
			name: nameOf(tree(), n), x: frames.x[i], y: frameTop(frames.depth[i]),
			width: frames.w[i], height: ROW, depth: frames.depth[i], faded: frames.faded[i],
			share: share(tree().total[n], P.total_period),
			period: tree().total[n],
			base: diff ? share(tree().base[n], diff.total_period) : null,
			color: diff ? diffColor(tree(), n) : null,
		})),
		width: () => chart.clientWidth,
		ready: true,
	};
})();
