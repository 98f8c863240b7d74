// A minimal DOM to run a flame graph's embedded script under node, for
// tests/unit/test_flamegraph.c: node flamegraph_dom.js FILE.svg COMMANDS.
// COMMANDS holds one action a line ("click NAME", "hover NAME",
// "search TERM", "escape", "reset", "key KEY NAME" (a key pressed on the
// frame NAME, focused: Enter, ArrowUp ...); NAME is "function (module)" as in the
// title); afterwards every frame is printed as
// F|name|x|width|class|fill|label, then matched|, details| and unzoom|.
// The SVG must be well-formed already: this parser only splits tags.
"use strict";
var fs = require("fs"), vm = require("vm");
var src = fs.readFileSync(process.argv[2], "utf8");
var cmds = fs.readFileSync(process.argv[3], "utf8");
var ents = { lt: "<", gt: ">", amp: "&", quot: "\"",
	apos: "'" };
function dec(t) {
	return t.replace(/&(\w+);/g, function (m, e) {
		return ents[e];
	});
}
function El(tag) {
	this.tagName = tag;
	this.attrs = {};
	this.parentNode = null;
	this.children = [];
	this.text = "";
	this.style = { fill: "" };
}
var P = El.prototype;
P.getAttribute = function (a) {
	return a in this.attrs ? this.attrs[a] : null;
};
P.setAttribute = function (a, v) {
	this.attrs[a] = "" + v;
};
P.appendChild = function (c) {
	c.parentNode = this;
	this.children.push(c);
};
P.getElementsByTagName = function (t) {
	var out = [];
	(function walk(e) {
		e.children.forEach(function (c) {
			if (t === "*" || c.tagName === t)
				out.push(c);
			walk(c);
		});
	})(this);
	return out;
};
Object.defineProperty(P, "id", {
	get: function () { return this.attrs.id || ""; }
});
Object.defineProperty(P, "textContent", {
	get: function () {
		return this.text + this.children.map(function (c) {
			return c.textContent;
		}).join("");
	},
	set: function (v) {
		this.text = "" + v;
		this.children = [];
	}
});
var doc = new El("#document"), on = {}, cur = doc, m;
var answer = null, re = new RegExp([
	/<!\[CDATA\[([\s\S]*?)\]\]>/.source,
	/<\?[\s\S]*?\?>/.source, /<\/[\w:-]+>/.source,
	/<([\w:-]+)((?:\s+[\w:-]+="[^"]*")*)\s*(\/?)>/.source,
	/([^<]+)/.source].join("|"), "g");
function attr(e) {
	return function (x, k, v) { e.attrs[k] = dec(v); };
}
while ((m = re.exec(src))) {
	if (m[1] !== undefined) {
		cur.text += m[1];
	} else if (m[0].slice(0, 2) === "</") {
		cur = cur.parentNode;
	} else if (m[2]) {
		var e = new El(m[2]);
		m[3].replace(/([\w:-]+)="([^"]*)"/g, attr(e));
		cur.appendChild(e);
		if (!m[4])
			cur = e;
	} else if (m[5] !== undefined && cur !== doc) {
		cur.text += dec(m[5]);
	}
}
function byId(id) {
	return doc.getElementsByTagName("*").filter(function (x) {
		return x.id === id;
	})[0] || null;
}
doc.getElementById = byId;
doc.createElementNS = function (ns, t) { return new El(t); };
doc.addEventListener = function (t, f) { on[t] = f; };
vm.runInNewContext(doc.getElementsByTagName("script")[0].text,
	{ document: doc, prompt: function () { return answer; } });
var frames = byId("frames").getElementsByTagName("g");
function name(g) {
	var t = g.getElementsByTagName("title")[0].textContent;
	return t.slice(0, t.lastIndexOf(" \u2014 "));
}
function rect(n) {
	return frames.filter(function (g) {
		return name(g) === n;
	})[0].getElementsByTagName("rect")[0];
}
function ev(target, key) {
	return { target: target, key: key,
		preventDefault: function () {} };
}
cmds.split("\n").forEach(function (c) {
	var arg = c.slice(c.indexOf(" ") + 1);
	if (c.indexOf("click ") === 0)
		on.click(ev(rect(arg)));
	else if (c.indexOf("hover ") === 0)
		on.mouseover(ev(rect(arg)));
	else if (c.indexOf("search ") === 0) {
		answer = arg;
		on.keydown(ev(doc, "/"));
	} else if (c === "escape")
		on.keydown(ev(doc, "Escape"));
	else if (c === "reset")
		on.click(ev(byId("unzoom")));
	else if (c.indexOf("key ") === 0)	/* "key KEY NAME", on its g */
		on.keydown(ev(rect(arg.slice(arg.indexOf(" ") + 1)).parentNode,
			      arg.slice(0, arg.indexOf(" "))));
});
frames.forEach(function (g) {
	var r = g.getElementsByTagName("rect")[0];
	var t = g.getElementsByTagName("text")[0];
	console.log(["F", name(g), r.getAttribute("x"),
		r.getAttribute("width"),
		g.getAttribute("class") || "-", r.style.fill || "-",
		t ? t.textContent : "-"].join("|"));
});
["matched", "details"].forEach(function (id) {
	console.log(id + "|" + byId(id).textContent);
});
console.log("unzoom|" +
	byId("unzoom").getAttribute("class"));
