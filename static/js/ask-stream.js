// Narrative answers arrive as a stream: the ask form posts to /ask asking for server-sent events;
// the checked text appears piece by piece, then the server-rendered turn replaces the preview.
// Without fetch streaming (or JavaScript) the form falls back to htmx or a plain post.
(function () {
  "use strict";
  function ready(fn) { if (document.readyState !== "loading") { fn(); } else { document.addEventListener("DOMContentLoaded", fn); } }
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
