/* Wayfarer chat page, part 2: the conversation, the WebSocket (/v1/ws), the history (/v1/sessions) and
 * the tool catalogue (/v1/tools), which says which tools answer from the offline sandbox.
 *
 * One answer streams at a time (`pending`). Its frames carry the id the page made for it, so after a
 * dropped connection the page reconnects, asks the server to resume that id, and the replay replaces the
 * text so far; a Stop sends a cancel for it. On load, and whenever the server no longer knows an answer,
 * the conversation is drawn again from the saved history: its latest page, with an "Earlier messages"
 * button above it that prepends the page before, as long as there is one.
 *
 * A user has several conversations (`conversation`, "main" for the first): "New trip" starts one, the
 * list above the trip (GET /v1/sessions/{user}/conversations) reopens or deletes the others. Each has
 * its own trip, history and connection.
 */
"use strict";
(function () {
  const R = window.wayfarerRender;
  const $ = (id) => document.getElementById(id);
  const store = window.localStorage;
  const userInput = $("user"), tokenInput = $("token"), statusEl = $("status");
  const scroller = $("scroller"), messages = $("messages"), welcome = $("welcome");
  const input = $("message"), sendButton = $("send"), stopButton = $("stop");
  const earlierButton = $("earlier");

  let ws = null, retry = 500, retryTimer = null, pending = null, turns = 0;
  // Keep the newest text in view; off once the reader scrolls up, on again when they scroll back down
  // or send a message.
  let follow = true;
  // Per tool name, what GET /v1/tools says: { provider, sandbox }.
  let tools = {};

  function randomId() {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  }

  userInput.value = store.getItem("wayfarer.user") || "web-" + randomId().slice(0, 8);
  tokenInput.value = store.getItem("wayfarer.token") || "";
  // The conversation on screen: the one this user had open last.
  const openKey = () => "wayfarer.conversation." + userInput.value.trim();
  let conversation = store.getItem(openKey()) || "main";

  function timezone() {
    try {
      return Intl.DateTimeFormat().resolvedOptions().timeZone || undefined;
    } catch {
      return undefined;
    }
  }

  function setStatus(text, open) {
    statusEl.textContent = text;
    statusEl.className = open ? "open" : "";
  }

  function streaming(on) {
    sendButton.hidden = on;
    stopButton.hidden = !on;
    stopButton.disabled = false;
    sendButton.disabled = false;
  }

  function updateWelcome() {
    welcome.hidden = messages.querySelector(".turn") !== null;
  }

  function nearBottom() {
    return scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 80;
  }

  function toBottom() {
    scroller.scrollTop = scroller.scrollHeight;
  }

  // Only a reader moves the view up (the page itself only ever scrolls to the bottom).
  scroller.addEventListener("scroll", () => (follow = nearBottom()), { passive: true });

  /** Run `draw`, then bring the end of the conversation into view unless the reader scrolled up. */
  function keepingBottom(draw) {
    draw();
    if (follow) toBottom();
  }

  /** A turn's box, not yet on the page: its time (`at`, ISO; now for a turn being sent) and its text. */
  function makeTurn(role, text, at) {
    const box = R.el("div", "turn " + role);
    const body = R.el("div", role === "assistant" ? "text answer" : "text", role === "assistant" ? undefined : text);
    box.dataset.key = "t" + ++turns;
    box.append(R.time(at || new Date().toISOString(), "turn-at"), body);
    return { box, body, key: box.dataset.key };
  }

  function addTurn(role, text) {
    const turn = makeTurn(role, text);
    keepingBottom(() => messages.append(turn.box));
    updateWelcome();
    return turn;
  }

  /** Draw a finished (or stopped) assistant turn: the answer, its sources and tool calls, a copy button. */
  function fill(turn, text, sources, toolCalls, stopped) {
    const { box, body, key } = turn;
    const numbered = R.numbered(sources);
    // The Sources line stays in the text only when there is no list to show them.
    body.replaceChildren(R.answer(text, key, numbered, !numbered.length));
    body.classList.remove("streaming", "waiting");
    box.removeAttribute("aria-busy");
    if (stopped) {
      box.classList.add("cancelled");
      body.append(R.el("p", "stopped", "(stopped)"));
    }
    const actions = R.el("div", "actions");
    const copy = R.el("button", "copy", "Copy");
    copy.type = "button";
    copy.setAttribute("aria-label", "Copy the answer");
    copy.addEventListener("click", () => copyAnswer(copy, body));
    actions.append(copy);
    box.append(actions);
    let listed = numbered;
    if (toolCalls && toolCalls.length) {
      // Offers and forecast days the answer cites are rows of their table, each the target of its [n]:
      // not listed again.
      const { views, rows } = window.wayfarerOffers.resultViews(toolCalls, numbered, (n) => R.sourceId(key, n));
      box.append(...views);
      box.append(R.toolCallsList(toolCalls.map((c) => ({ ...c, sandbox: onSandbox(c, numbered) }))));
      listed = numbered.filter((s) => !rows.has(s.n));
      foldOffers(body, rows);
    }
    if (listed.length) box.append(R.sourcesList(listed, key));
  }

  /** The answer's lists whose every item cites offers or forecast days that are table rows now: folded
   * away, the table says it better (the text itself stays whole: in the history, for API clients and
   * for Copy). `rows`: source number → what its row shows. */
  function foldOffers(body, rows) {
    for (const list of body.querySelectorAll(".answer ul, .answer ol")) {
      const items = Array.from(list.children);
      const inTable = (li) => {
        const cites = li.querySelectorAll("a.cite");
        return cites.length > 0 && Array.from(cites).every((a) => rows.has(Number(a.dataset.n)));
      };
      if (!items.length || !items.every(inTable)) continue;
      list.hidden = true;
      list.dataset.folded = "offers";
      const noun = rows.get(Number(items[0].querySelector("a.cite").dataset.n));
      const show = R.el("button", "unfold", "Show the " + items.length + " " + noun + " as text");
      show.type = "button";
      show.addEventListener("click", () => {
        list.hidden = false;
        show.remove();
      });
      list.after(show);
    }
  }

  function settle(turn, text, sources, toolCalls, stopped) {
    keepingBottom(() => fill(turn, text, sources, toolCalls, stopped));
  }

  /** Whether a tool call's data came from the offline sandbox: the call says so; else a source it gave
   * does; else the tool goes to the sandbox now (GET /v1/tools). */
  function onSandbox(call, sources) {
    if (typeof call.sandbox === "boolean") return call.sandbox;
    if (call.provider && sources.some((s) => s.sandbox && s.provider === call.provider)) return true;
    const now = tools[call.name];
    return Boolean(now && now.sandbox && (!call.provider || now.provider === call.provider));
  }

  function copyAnswer(button, body) {
    // The whole answer, offers folded into their table included (unfolded just while it is read).
    const folded = Array.from(body.querySelectorAll("[data-folded]")).filter((list) => list.hidden);
    const unfold = Array.from(body.querySelectorAll("button.unfold"));
    folded.forEach((list) => (list.hidden = false));
    unfold.forEach((b) => (b.hidden = true));
    const text = body.innerText.replace(/\n?\(stopped\)$/, "").trim();
    folded.forEach((list) => (list.hidden = true));
    unfold.forEach((b) => (b.hidden = false));
    navigator.clipboard.writeText(text).then(
      () => {
        button.textContent = "Copied";
        button.dataset.copied = "true";
        setTimeout(() => (button.textContent = "Copy"), 2000);
      },
      () => (button.textContent = "Copy failed"),
    );
  }

  function errorTurn(frame) {
    addTurn("error", frame.error.message + " (" + frame.error.code + ")");
  }

  // --- the answer being written --------------------------------------------------------------------

  /** Redraw the streaming text at most once an animation frame (Markdown is re-rendered whole). */
  function schedule() {
    if (pending.frame) return;
    const current = pending;
    current.frame = requestAnimationFrame(() => {
      current.frame = 0;
      if (pending !== current) return;
      keepingBottom(() => current.body.replaceChildren(R.answer(current.text, current.key)));
    });
  }

  function close(frame, stopped) {
    const done = pending;
    pending = null;
    if (done.frame) cancelAnimationFrame(done.frame);
    settle(done, frame.text, stopped ? [] : frame.sources, stopped ? [] : frame.tool_calls, stopped);
    streaming(false);
    refreshTrip();
    loadConversations();  // a new one is listed now, titled by its first message
  }

  // --- the trip in view --------------------------------------------------------------------------------

  const tripBox = document.getElementById("trip");
  const tripSummary = document.getElementById("trip-summary");

  /** What the conversation has settled about the trip, in a line: places, dates, travellers. */
  function tripParts(trip) {
    const parts = [];
    const to = trip.destination_label || trip.destination_name || trip.destination;
    const from = trip.origin_name || trip.origin;
    if (to) parts.push(from ? from + " → " + to : to);
    else if (from) parts.push("from " + from);
    if (trip.start_date) {
      let end = trip.end_date;
      if (!end && trip.nights) {  // a stay: the day it ends, counted in UTC so no time zone moves it
        end = new Date(Date.parse(trip.start_date + "T00:00:00Z") + trip.nights * 86400000).toISOString().slice(0, 10);
      }
      parts.push(trip.start_date + (end ? " to " + end : "") + (trip.nights ? " (" + trip.nights + " night" + (trip.nights === 1 ? "" : "s") + ")" : ""));
    } else if (trip.month) parts.push(String(trip.month).slice(0, 7));
    else if (trip.nights) parts.push(trip.nights + " night" + (trip.nights === 1 ? "" : "s"));
    const who = [];
    if (trip.adults) who.push(trip.adults + " adult" + (trip.adults === 1 ? "" : "s"));
    if (trip.children) who.push(trip.children + " child" + (trip.children === 1 ? "" : "ren"));
    if (trip.rooms) who.push(trip.rooms + " room" + (trip.rooms === 1 ? "" : "s"));
    if (who.length) parts.push(who.join(", "));
    if (trip.trip_kind === "one_way") parts.push("one way");
    if (trip.cabin) parts.push(String(trip.cabin).replace(/_/g, " ").toLowerCase());
    return parts;
  }

  function showTrip(trip) {
    const parts = tripParts(trip || {});
    tripSummary.textContent = parts.join(" · ");
    tripBox.hidden = !parts.length;
  }

  /** The trip as the server has it now (after an answer may have changed it). */
  async function refreshTrip() {
    try {
      showTrip((await fetchHistory(undefined, 1)).trip);
    } catch (exc) {
      /* the summary stays as it was; the next answer tries again */
    }
  }

  async function clearTrip() {
    const resp = await fetch(sessionUrl("/trip"), { method: "DELETE", headers: authHeaders() });
    if (resp.ok) showTrip({});
  }

  function onFrame(frame) {
    if (frame.type === "error") return onError(frame);
    if (!pending || (frame.id && frame.id !== pending.id)) return;  // a late frame of an answer already closed
    if (frame.type === "cancelled") return close(frame, true);
    if (frame.type === "progress") {
      // What it is doing until it writes: "Searching hotels in Lisbon…" (the latest call said).
      if (!pending.text) {
        pending.body.replaceChildren(R.el("p", "progress", frame.text));
        pending.body.dataset.progress = frame.tool;
      }
      return;
    }
    if (frame.type !== "response") return;
    if (frame.complete) return close(frame, false);
    if (frame.chunk) {
      pending.text = frame.replay ? frame.text : pending.text + frame.text;
      pending.chunks += 1;
      pending.body.dataset.chunks = String(pending.chunks);
      pending.body.classList.remove("waiting");
      schedule();
    }
  }

  function onError(frame) {
    const code = frame.error && frame.error.code;
    if (code === "nothing_to_cancel") return;  // the answer finished first: its complete frame says so
    if (code === "unknown_answer") {
      if (pending && pending.resumed) {
        // A question from the history that no answer is being written for (the service restarted):
        // nothing to follow; it stays as it was saved.
        const gone = pending;
        pending = null;
        unanswered.add(gone.id);
        gone.box.remove();
        streaming(false);
        return;
      }
      loadHistory();
      return;
    }
    if (pending && (!frame.id || frame.id === pending.id)) {
      const failed = pending;
      pending = null;
      if (failed.frame) cancelAnimationFrame(failed.frame);
      failed.box.remove();
      streaming(false);
    }
    errorTurn(frame);
  }

  function send(frame) {
    if (!ws || ws.readyState !== WebSocket.OPEN) return false;
    ws.send(JSON.stringify(frame));
    return true;
  }

  // --- the connection ------------------------------------------------------------------------------

  function connect() {
    clearTimeout(retryTimer);
    const url = new URL("v1/ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    url.searchParams.set("user_id", userInput.value.trim());
    url.searchParams.set("conversation_id", conversation);
    if (tokenInput.value) url.searchParams.set("token", tokenInput.value);
    const socket = new WebSocket(url);
    ws = socket;
    socket.onopen = () => {
      setStatus("connected", true);
      retry = 500;
      if (pending) {
        send({ type: "resume", id: pending.id });
        if (pending.stopping) send({ type: "cancel", id: pending.id });
      }
    };
    socket.onclose = () => {
      if (ws !== socket) return;  // replaced on purpose (a new user or token)
      setStatus("reconnecting…", false);
      if (pending) pending.body.classList.add("waiting");
      retryTimer = setTimeout(connect, retry + Math.random() * retry * 0.3);
      retry = Math.min(retry * 2, 10000);
    };
    socket.onmessage = (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      onFrame(frame);
    };
  }

  function reconnect() {
    const old = ws;
    ws = null;
    if (old) old.close();
    connect();
  }

  // --- the tool catalogue ---------------------------------------------------------------------------

  const sandboxNote = $("sandbox-note");
  const HIDDEN_NOTE = "wayfarer.sandboxNoteHidden";
  // What a sandbox tool's results are, for the note's first words.
  const NOUNS = {
    flight_search: "flights", hotel_search: "hotels", activity_search: "activities",
    flight_inspiration: "fares", cheapest_dates: "fares", weather_forecast: "weather",
  };

  /** Up front: which tools answer with synthetic data from the offline sandbox (hidden when none do). */
  function showSandboxNote() {
    const offline = Object.keys(tools).filter((name) => tools[name].sandbox);
    const names = offline.join(", ");
    sandboxNote.hidden = !offline.length || window.sessionStorage.getItem(HIDDEN_NOTE) === names;
    if (!offline.length) return;
    const nouns = [...new Set(offline.map((name) => NOUNS[name] || name))];
    const what = nouns.length > 1 ? nouns.slice(0, -1).join(", ") + " and " + nouns.at(-1) : nouns[0];
    $("sandbox-what").textContent = what;
    $("sandbox-tools").textContent = names;
    $("sandbox-hide").onclick = () => {
      sandboxNote.hidden = true;
      window.sessionStorage.setItem(HIDDEN_NOTE, names);  // for this tab, until the set changes
    };
  }

  /** GET /v1/tools, once: a failure only leaves the note out. */
  async function loadTools() {
    try {
      const resp = await fetch("v1/tools", { cache: "no-store" });
      if (!resp.ok) return;
      const body = await resp.json();
      tools = Object.fromEntries((body.tools || []).map((t) => [t.name, { provider: t.provider, sandbox: Boolean(t.sandbox) }]));
    } catch {
      return;
    }
    showSandboxNote();
  }

  const toolsLoaded = loadTools();

  // --- the saved conversation ------------------------------------------------------------------------

  // Questions in the history that no answer is being written for: not followed again.
  const unanswered = new Set();

  // The page of history drawn last: which load it belongs to, and the `before` of the page before it
  // (null: nothing earlier).
  let drawn = 0, earlier = null;

  /** The token, when there is one, as the API takes it. */
  function authHeaders() {
    return tokenInput.value ? { Authorization: "Bearer " + tokenInput.value } : {};
  }

  /** A URL under /v1/sessions/{user} (`suffix`: "", "/trip" or "/conversations"), with `query`. */
  function userUrl(suffix, query) {
    const params = new URLSearchParams(query || {}).toString();
    return "v1/sessions/" + encodeURIComponent(userInput.value.trim()) + suffix + (params ? "?" + params : "");
  }

  /** The same for a conversation: `id`, else the open one. */
  function sessionUrl(suffix, query, id) {
    return userUrl(suffix, { ...query, conversation_id: id || conversation });
  }

  /** GET /v1/sessions/{user}, the latest page or the one before turn `before`; throws with its message. */
  async function fetchHistory(before, limit) {
    const headers = authHeaders();
    const asked = {};
    if (before !== undefined) asked.before = before;
    if (limit !== undefined) asked.limit = limit;
    const resp = await fetch(sessionUrl("", asked), { headers, cache: "no-store" });
    const body = await resp.json();
    if (!resp.ok) throw new Error((body.error && body.error.message) || resp.statusText);
    return body;
  }

  /** Saved turns as boxes in a fragment, oldest first. */
  function savedTurns(history) {
    const out = document.createDocumentFragment();
    for (const t of history || []) {
      if (t.role !== "user" && t.role !== "assistant") continue;
      const turn = makeTurn(t.role, t.role === "user" ? t.text : undefined, t.at);
      if (t.role === "assistant") fill(turn, t.text, t.sources, t.tool_calls, Boolean(t.cancelled));
      out.append(turn.box);
    }
    return out;
  }

  /** Show "Earlier messages" when the server says there are turns before those drawn. */
  function showEarlier(body) {
    earlier = body.more && Number.isInteger(body.before) ? body.before : null;
    earlierButton.hidden = earlier === null;
    earlierButton.disabled = false;
    earlierButton.textContent = "Earlier messages";
  }

  /** Draw the conversation from GET /v1/sessions/{user}: the server's history is the truth. */
  async function loadHistory() {
    const lost = pending;
    const load = ++drawn;
    let body;
    try {
      body = await fetchHistory();
    } catch (exc) {
      if (load !== drawn) return;
      earlier = null;
      earlierButton.hidden = true;
      errorTurn({ error: { code: "history_unavailable", message: "The conversation could not be loaded: " + exc.message } });
      return;
    }
    await toolsLoaded;  // a past tool call is labelled sandbox or not with it
    if (load !== drawn) return;  // a newer load (another user) draws instead
    if (lost && pending === lost) {
      pending = null;
      if (lost.frame) cancelAnimationFrame(lost.frame);
      streaming(false);
    }
    messages.replaceChildren(savedTurns(body.history));
    showEarlier(body);
    showTrip(body.trip);
    // A question still being answered (a reload while its answer is written): follow it to its end.
    const last = (body.history || []).at(-1);
    if (!pending && last && last.role === "user" && last.id && !unanswered.has(last.id)) {
      const turn = addTurn("assistant");
      turn.body.classList.add("streaming", "waiting");
      turn.box.setAttribute("aria-busy", "true");
      pending = { ...turn, id: last.id, question: last.text, text: "", chunks: 0, frame: 0, stopping: false, resumed: true };
      pending.body.dataset.chunks = "0";
      streaming(true);
      send({ type: "resume", id: last.id });  // when connected now; else connect() resumes it on open
    }
    // A message the server never received is given back rather than lost.
    if (lost && !(body.history || []).some((t) => t.id === lost.id) && !input.value) input.value = lost.question;
    updateWelcome();
    follow = true;
    toBottom();
  }

  /** Prepend the page before the turns drawn, keeping what the reader sees where it is. */
  async function loadEarlier() {
    if (earlier === null || earlierButton.disabled) return;
    const load = drawn;
    earlierButton.disabled = true;
    earlierButton.textContent = "Loading earlier messages…";
    let body;
    try {
      body = await fetchHistory(earlier);
    } catch (exc) {
      if (load !== drawn) return;
      earlierButton.disabled = false;
      earlierButton.textContent = "Earlier messages could not be loaded (" + exc.message + "): try again";
      return;
    }
    if (load !== drawn) return;  // the conversation was drawn again meanwhile
    // Distance from the bottom stays the same: the turns on screen do not move as others appear above.
    const fromBottom = scroller.scrollHeight - scroller.scrollTop;
    messages.prepend(savedTurns(body.history));
    showEarlier(body);
    scroller.scrollTop = scroller.scrollHeight - fromBottom;
  }

  earlierButton.addEventListener("click", loadEarlier);

  // --- the user's conversations ------------------------------------------------------------------------

  const conversationList = $("conversation-list");
  let listing = 0;

  /** One conversation in the list: its title reopens it, × deletes it. */
  function conversationItem(id, titleText, started) {
    const li = R.el("li");
    li.dataset.conversation = id;
    const open = R.el("button", "open", titleText);
    open.type = "button";
    open.title = titleText + (started ? " (started " + started.slice(0, 10) + ")" : "");
    open.addEventListener("click", () => openConversation(id));
    const remove = R.el("button", "delete", "×");
    remove.type = "button";
    remove.setAttribute("aria-label", "Delete the conversation “" + titleText + "”");
    remove.addEventListener("click", () => deleteConversation(id));
    li.append(open, remove);
    return li;
  }

  function markOpen() {
    for (const li of conversationList.children) {
      if (li.dataset.conversation === conversation) li.setAttribute("aria-current", "true");
      else li.removeAttribute("aria-current");
    }
  }

  /** GET /v1/sessions/{user}/conversations: the list, the one written last first; the open one is marked
   * (a new one, not written yet, shows as "New trip"). A failure leaves the list as it was. */
  async function loadConversations() {
    const load = ++listing;
    let body;
    try {
      const resp = await fetch(userUrl("/conversations"), { headers: authHeaders(), cache: "no-store" });
      if (!resp.ok) return;
      body = await resp.json();
    } catch {
      return;
    }
    if (load !== listing) return;
    const items = (body.conversations || []).map((c) => conversationItem(c.id, c.title, c.started));
    if (!items.some((li) => li.dataset.conversation === conversation) && conversation !== "main") {
      items.unshift(conversationItem(conversation, "New trip"));
    }
    conversationList.replaceChildren(...items);
    markOpen();
  }

  /** Show conversation `id`: its history, its trip and a connection of its own. */
  function openConversation(id) {
    if (id === conversation) return;
    conversation = id;
    store.setItem(openKey(), id);
    if (pending && pending.frame) cancelAnimationFrame(pending.frame);
    pending = null;  // an answer being written goes on on the server, and is saved
    streaming(false);
    markOpen();
    loadHistory().then(reconnect);
  }

  function newConversation() {
    openConversation(randomId());
    loadConversations();
    input.focus();
  }

  async function deleteConversation(id) {
    const resp = await fetch(sessionUrl("", {}, id), { method: "DELETE", headers: authHeaders() });
    if (!resp.ok) return;
    const li = [...conversationList.children].find((item) => item.dataset.conversation === id);
    if (li) li.remove();
    if (id === conversation) {
      const next = conversationList.querySelector("li[data-conversation]");
      if (next) openConversation(next.dataset.conversation);
      else newConversation();
    }
  }

  $("new-conversation").addEventListener("click", newConversation);
  document.getElementById("trip-clear").addEventListener("click", clearTrip);

  // --- the form --------------------------------------------------------------------------------------

  /** Send `text` as a message; false if it cannot go now (an answer is streaming, or no connection). */
  function ask(text) {
    if (!text || pending) return false;
    const id = randomId();
    const frame = { type: "message", text, id };
    const tz = timezone();
    if (tz) frame.timezone = tz;
    if (!send(frame)) {
      setStatus("not connected yet…", false);
      return false;
    }
    follow = true;  // the reader asked: show the question and the answer as it comes
    addTurn("user", text);
    const turn = addTurn("assistant");
    turn.body.classList.add("streaming");
    turn.box.setAttribute("aria-busy", "true");
    pending = { ...turn, id, question: text, text: "", chunks: 0, frame: 0, stopping: false };
    pending.body.dataset.chunks = "0";
    streaming(true);
    return true;
  }

  $("ask").addEventListener("submit", (event) => {
    event.preventDefault();
    if (ask(input.value.trim())) input.value = "";
  });

  function stop() {
    if (!pending || pending.stopping) return;
    pending.stopping = true;
    stopButton.disabled = true;
    send({ type: "cancel", id: pending.id });  // if the connection is down, sent after the resume
  }

  stopButton.addEventListener("click", stop);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") stop();
  });

  welcome.addEventListener("click", (event) => {
    const button = event.target.closest("button[data-ask]");
    if (!button) return;
    // An example is asked at once; if it cannot go yet, it waits in the box.
    if (!ask(button.dataset.ask)) {
      input.value = button.dataset.ask;
      input.focus();
    }
  });

  // A citation opens its source's excerpt and brings it into view.
  messages.addEventListener("click", (event) => {
    const cite = event.target.closest("a.cite");
    if (!cite) return;
    event.preventDefault();
    const li = document.getElementById(cite.getAttribute("href").slice(1));
    if (!li) return;
    for (const other of messages.querySelectorAll(".target")) other.classList.remove("target");
    li.classList.add("target");
    if (li.tagName === "TR") {  // an offer's row in its table
      li.scrollIntoView({ block: "nearest" });
      li.focus({ preventScroll: true });
      return;
    }
    li.closest("details").open = true;
    R.expand(li, true);
    li.scrollIntoView({ block: "nearest" });
    li.querySelector(".source-toggle").focus({ preventScroll: true });
  });

  for (const field of [userInput, tokenInput]) {
    field.addEventListener("change", () => {
      store.setItem("wayfarer.user", userInput.value.trim());
      store.setItem("wayfarer.token", tokenInput.value);
      conversation = store.getItem(openKey()) || "main";
      pending = null;
      streaming(false);
      loadConversations();
      loadHistory().then(reconnect);  // the conversation and the connection of the new user
    });
  }

  // Leaving the page closes the connection at once (a page kept in the back/forward cache would hold it
  // open); coming back reconnects, and resumes an answer that was being written.
  window.addEventListener("pagehide", () => {
    const socket = ws;
    ws = null;
    clearTimeout(retryTimer);
    if (socket) socket.close();
  });
  window.addEventListener("pageshow", (event) => {
    if (event.persisted) connect();
  });

  store.setItem("wayfarer.user", userInput.value);
  streaming(false);
  // A test hook: the live socket (tests drop it to check that an answer resumes).
  window.wayfarer = { socket: () => ws };
  loadConversations();
  loadHistory().then(connect);
})();
