// Narrative answers arrive as a stream: the ask form posts to /ask asking for server-sent events;
// the checked text appears piece by piece, then the server-rendered turn replaces the preview.
// Without fetch streaming (or JavaScript) the form falls back to htmx or a plain post.
// However it was asked, a new turn is brought into view (its question at the top of the screen),
// smoothly unless the reader asked for reduced motion; the focus stays where it was.
(function () {
  "use strict";
  function ready(fn) { if (document.readyState !== "loading") { fn(); } else { document.addEventListener("DOMContentLoaded", fn); } }
  var reduced = window.matchMedia ? window.matchMedia("(prefers-reduced-motion: reduce)") : null;
  var moved = false;  // the reader scrolled by hand since the last question was asked
  ["wheel", "touchmove"].forEach(function (name) {
    window.addEventListener(name, function () { moved = true; }, {passive: true});
  });
  window.addEventListener("keydown", function (event) {
    var keys = ["PageUp", "PageDown", "Home", "End", "ArrowUp", "ArrowDown", " "];
    var typing = event.target && event.target.closest && event.target.closest("input, textarea, select, [contenteditable]");
    if (!typing && keys.indexOf(event.key) >= 0) { moved = true; }
  });
  // Whether `turn` can be read from its start: its top on screen, in the upper three quarters of
  // what the sticky ask form leaves, and its question above the form.
  function inSight(turn) {
    var top = turn.getBoundingClientRect().top, bottom = window.innerHeight;
    var form = document.getElementById("ask-form");
    if (form) { bottom = Math.min(bottom, form.getBoundingClientRect().top); }
    var question = turn.querySelector(".question");
    var end = question ? question.getBoundingClientRect().bottom : top;
    return top >= -1 && top <= 0.75 * bottom && end <= bottom;
  }
  // Scroll `turn`'s top into view, unless it is already there or (`always` false) the reader has
  // scrolled elsewhere since asking. scrollIntoView moves no focus: a follow-up being typed stays.
  function reveal(turn, always) {
    if (!turn || (!always && moved) || inSight(turn)) { return; }
    turn.scrollIntoView({block: "start", behavior: reduced && reduced.matches ? "auto" : "smooth"});
  }
  ready(function () {
    // htmx answers (the chips, the recent questions, the form when fetch cannot stream) are added
    // at the conversation's end; bring the first new one into view once it has settled, after the
    // form's own after-request handler has run.
    var before = null;
    document.body.addEventListener("htmx:beforeSwap", function (event) {
      var target = event.detail && event.detail.target;
      if (target && target.id === "conversation") { before = target.querySelectorAll("article.turn").length; }
    });
    document.body.addEventListener("htmx:afterSettle", function (event) {
      var target = event.detail && event.detail.target;
      if (before === null || !target || target.id !== "conversation") { return; }
      var turns = target.querySelectorAll("article.turn"), first = turns[before];
      before = null;
      if (first) { moved = false; reveal(first, true); }
    });
  });
  ready(function () {
    var form = document.getElementById("ask-form");
    if (!form || !window.fetch || !window.ReadableStream || !window.TextDecoder) { return; }
    // the words it shows, in the UI's language, rendered into the page by the server
    var holder = document.getElementById("page-strings");
    var words = holder ? JSON.parse(holder.textContent) : {};
    form.addEventListener("submit", function (event) {
      var question = form.querySelector("textarea[name=question]").value.trim();
      if (!question) { return; }
      event.preventDefault();
      event.stopImmediatePropagation();
      var conversation = document.getElementById("conversation");
      var empty = document.getElementById("empty-state");
      if (empty) { empty.remove(); }
      var preview = document.createElement("article");
      preview.className = "turn streaming";
      var asked = document.createElement("p");
      asked.className = "question";
      asked.textContent = question;
      var live = document.createElement("div");
      live.className = "text live";
      live.textContent = words.looking || "…";
      preview.appendChild(asked);
      preview.appendChild(live);
      conversation.appendChild(preview);
      moved = false;
      reveal(preview, true);
      var body = buildBody(form, question);
      form.reset();
      fetch(form.action, {method: "POST", body: body,
                          headers: {"Accept": "text/event-stream"}, credentials: "same-origin"})
        .then(function (response) {
          if (!response.ok || !response.body) { throw new Error("stream unavailable"); }
          var reader = response.body.getReader(), decoder = new TextDecoder(), buffer = "", started = false;
          function pump() {
            return reader.read().then(function (chunk) {
              if (chunk.done) { return; }
              buffer += decoder.decode(chunk.value, {stream: true});
              var blocks = buffer.split("\n\n");
              buffer = blocks.pop();
              blocks.forEach(function (block) {
                var name = (block.match(/^event: (.*)$/m) || [])[1];
                var data = JSON.parse((block.match(/^data: (.*)$/m) || [null, "null"])[1]);
                if (name === "structured") { live.textContent = data.text + "\n\n"; started = true; }
                if (name === "delta") { if (!started) { live.textContent = ""; started = true; } live.textContent += data.text; }
                if (name === "turn") {
                  var holder = document.createElement("div");
                  holder.innerHTML = data.html;
                  var turn = holder.querySelector("article.turn");
                  preview.replaceWith(turn);
                  var recent = holder.querySelector("#recent");
                  var current = document.getElementById("recent");
                  if (recent && current) { current.replaceWith(recent); }
                  if (window.htmx) { window.htmx.process(turn); if (recent) { window.htmx.process(recent); } }
                  reveal(turn, false);  // unless the reader has scrolled away meanwhile
                }
              });
              return pump();
            });
          }
          return pump();
        })
        .catch(function () { live.textContent = words.broken || "!"; });
    }, true);
  });
  function buildBody(form, question) {
    var body = new FormData();
    body.append("question", question);
    var token = form.querySelector("input[name=csrfmiddlewaretoken]");
    if (token) { body.append("csrfmiddlewaretoken", token.value); }
    return body;
  }
})();
