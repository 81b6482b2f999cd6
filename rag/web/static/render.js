/* Wayfarer chat page, part 1: answer text to safe HTML, citations to links, the sources and tool-call lists.
 *
 * Answers are Markdown written by the service, but they quote documents and provider data, so nothing in
 * them is trusted. The service writes no link in an answer's Markdown (its guides' links are reduced to
 * their text, results and errors are escaped), so a link there was written by someone else: markdown-it
 * runs with raw HTML, links, images, autolinks, link references and linkify all off, and DOMPurify
 * cleans the result against a short allow-list without <a> or <img> before it reaches the page. The only
 * links in an answer are the ones this file makes: its [n] citations, to the sources listed under it.
 * Everything else (titles, excerpts, tool calls) is set with textContent, never parsed.
 */
"use strict";
(function () {
  const md = window.markdownit({ html: false, linkify: false, typographer: false, breaks: false });
  md.disable(["link", "image", "autolink", "reference", "linkify"]);
  md.validateLink = () => false;

  const purify = window.DOMPurify;
  const CLEAN = {
    RETURN_DOM_FRAGMENT: true,
    ALLOWED_TAGS: ["p", "br", "strong", "em", "s", "del", "ul", "ol", "li", "h1", "h2", "h3", "h4", "h5", "h6",
      "code", "pre", "blockquote", "hr", "table", "thead", "tbody", "tr", "th", "td"],
    ALLOWED_ATTR: ["title", "start"],
  };
  const CITATION = /\[(\d{1,3})\]/g;
  // The answer's last line, "Sources: [1] ...; [2] ...", in each language the service answers in
  // (`sources` in rag/i18n/messages.yaml; tests/test_web_page.py checks every one). REST clients read it
  // in the text; the page shows the same sources as the list under the answer, so not in the bubble.
  const SOURCES_LINE = /(?:^|\n)[ \t]*(?:Sources|Fuentes|Quellen|Fontes|Fonti)[ \u00a0]?:[ \u00a0]*\[\d{1,3}\][^\n]*\s*$/;

  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }

  /** Source n's element id in turn `key` (citations link to it). */
  function sourceId(key, n) {
    return "src-" + key + "-" + n;
  }

  /** Turn "[n]" in the text (outside links and code) into links to source n, for the numbers listed. */
  function linkCitations(root, key, numbers) {
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    const found = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (parent && parent.closest("a, code, pre")) continue;
      CITATION.lastIndex = 0;
      if (CITATION.test(node.data)) found.push(node);
    }
    for (const node of found) {
      const parts = document.createDocumentFragment();
      let last = 0;
      for (const match of node.data.matchAll(CITATION)) {
        const n = Number(match[1]);
        if (!numbers.has(n)) continue;
        parts.append(node.data.slice(last, match.index));
        const link = el("a", "cite", match[0]);
        link.href = "#" + sourceId(key, n);
        link.dataset.n = String(n);
        link.setAttribute("aria-label", "source " + n);
        parts.append(link);
        last = match.index + match[0].length;
      }
      parts.append(node.data.slice(last));
      node.replaceWith(parts);
    }
  }

  /** `text` without its closing Sources line (the list under the answer shows them). */
  function withoutSourcesLine(text) {
    return String(text || "").replace(SOURCES_LINE, "");
  }

  /** The answer's Markdown as a sanitised fragment, without its Sources line unless `keepSourcesLine`
   * (an answer drawn with no list to show them); with sources, its [n] citations become links. */
  function answer(text, key, sources, keepSourcesLine) {
    const shown = keepSourcesLine ? String(text || "") : withoutSourcesLine(text);
    const fragment = purify.sanitize(md.render(shown), CLEAN);
    if (sources && sources.length) linkCitations(fragment, key, new Set(sources.map((s) => s.n)));
    return fragment;
  }

  /** Sources as the page shows them: numbered (the contract's "n", else their order), ids as titles. */
  function numbered(sources) {
    return (sources || []).map((s, i) => {
      const item = typeof s === "string" ? { id: s } : s;
      return { ...item, n: Number.isInteger(item.n) ? item.n : i + 1 };
    });
  }

  const pad = (n) => String(n).padStart(2, "0");

  /** Every time on the page, one way: "2026-11-23 01:40 UTC", as the answers' own text writes them. */
  function when(iso) {
    const at = new Date(iso);
    if (Number.isNaN(at.getTime())) return String(iso);
    const day = at.getUTCFullYear() + "-" + pad(at.getUTCMonth() + 1) + "-" + pad(at.getUTCDate());
    return day + " " + pad(at.getUTCHours()) + ":" + pad(at.getUTCMinutes()) + " UTC";
  }

  /** A <time> showing `iso` as `when` writes it, after `prefix` ("fetched "). */
  function time(iso, cls, prefix) {
    const node = el("time", cls, (prefix || "") + when(iso));
    node.dateTime = String(iso);
    return node;
  }

  /** "Title — Section", without the title repeated at the head of a section path ("Title > Section"). */
  function label(s) {
    const title = s.title || s.id;
    let section = s.section || "";
    if (section.startsWith(title + " > ")) section = section.slice(title.length + 3);
    return section && section !== title ? title + " — " + section : title;
  }

  function listBox(title, cls, count) {
    const details = el("details", cls);
    details.open = true;
    details.append(el("summary", null, title + " (" + count + ")"));
    const ul = el("ul");
    details.append(ul);
    return { details, ul };
  }

  /** The Sources list: each item shows what a person needs to check it, and opens to its excerpt. */
  function sourcesList(sources, key) {
    const { details, ul } = listBox("Sources", "sources", sources.length);
    for (const s of sources) {
      const li = el("li");
      li.id = sourceId(key, s.n);
      li.dataset.n = String(s.n);
      const toggle = el("button", "source-toggle");
      toggle.type = "button";
      toggle.setAttribute("aria-expanded", "false");
      toggle.append(el("span", "source-num", "[" + s.n + "]"));
      toggle.append(el("span", "source-title", label(s)));
      li.append(toggle);
      const meta = el("div", "meta");
      // Sandbox results are not "live via duffel": the badge says what they are.
      const facts = s.sandbox ? [s.kind] : [s.kind, s.source, s.provider ? "via " + s.provider : null];
      meta.append(el("span", null, facts.filter(Boolean).join(" · ")));
      if (s.fetched_at) meta.append(time(s.fetched_at, null, "fetched "));
      if (s.sandbox) meta.append(el("span", "badge sandbox", "sandbox data (synthetic)"));
      if (s.indicative) meta.append(el("span", "badge indicative", "indicative"));
      li.append(meta);
      const excerpt = el("div", "excerpt", s.excerpt || "No excerpt was kept for this source.");
      excerpt.id = li.id + "-excerpt";
      excerpt.hidden = true;
      toggle.setAttribute("aria-controls", excerpt.id);
      li.append(excerpt);
      toggle.addEventListener("click", () => expand(li, excerpt.hidden));
      ul.append(li);
    }
    return details;
  }

  /** Show or hide a source item's excerpt. */
  function expand(li, open) {
    li.querySelector(".excerpt").hidden = !open;
    li.querySelector(".source-toggle").setAttribute("aria-expanded", String(open));
  }

  function count(n, one, many) {
    return n + " " + (n === 1 ? one : many);
  }

  /** A tool call: "flight_search via duffel" for a real provider, "flight_search · sandbox (synthetic)"
   * for the offline sandbox (it speaks duffel's API, but nothing in it is a real fare). */
  function toolCall(c) {
    const li = el("li");
    li.append(el("span", "tool-name", c.name));
    if (c.sandbox) {
      li.append(" · ");
      const badge = el("span", "sandbox", "sandbox (synthetic)");
      if (c.provider) badge.title = "synthetic data from the offline sandbox, in " + c.provider + "'s format";
      li.append(badge);
    } else if (c.provider) li.append(" via " + c.provider);
    // `result_count`; turns saved before it carry `results` (a count, or the results themselves).
    const given = c.result_count ?? c.results;
    const n = Array.isArray(given) ? given.length : Number(given) || 0;
    const note = c.error
      ? "failed: " + c.error
      : count(n, "result", "results") + (c.from_index ? ", from the index" : "") + (c.ingested ? ", " + c.ingested + " ingested" : "");
    li.append(" ", el("span", "kind", note));
    return li;
  }

  /** The Tool calls list; each call's `sandbox` says whether its data was synthetic. */
  function toolCallsList(calls) {
    const { details, ul } = listBox("Tool calls", "tool-calls", calls.length);
    for (const c of calls) ul.append(toolCall(c));
    return details;
  }

  window.wayfarerRender = {
    answer, withoutSourcesLine, numbered, sourcesList, toolCallsList, expand, sourceId, el, when, time,
  };
})();
