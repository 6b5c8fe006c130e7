// escoba site: a little plain JavaScript. Every page works without it; it adds stepping to the
// game viewer, the filter of the rules matrix, the face switch and the marking of a linked quote.
(function () {
  "use strict";

  // -- card faces: Spanish suits or the French-suited deck, remembered when the browser allows
  function setFaces(name) {
    document.body.classList.remove("faces-spanish", "faces-french");
    document.body.classList.add("faces-" + name);
    document.querySelectorAll("[data-faces]").forEach(function (b) {
      b.setAttribute("aria-pressed", String(b.getAttribute("data-faces") === name));
    });
  }
  function storedFaces() {
    try { return window.localStorage.getItem("escoba-faces"); } catch (e) { return null; }
  }
  document.querySelectorAll("[data-faces]").forEach(function (b) {
    b.addEventListener("click", function () {
      var name = b.getAttribute("data-faces");
      setFaces(name);
      try { window.localStorage.setItem("escoba-faces", name); } catch (e) { /* file pages may refuse storage */ }
    });
  });
  var chosen = storedFaces();
  setFaces(chosen === "spanish" || chosen === "french" ? chosen
           : (document.body.classList.contains("faces-french") ? "french" : "spanish"));

  // -- the game viewer: one step shown at a time; buttons, arrow keys, #step-N links
  document.querySelectorAll("[data-viewer]").forEach(function (viewer) {
    var steps = Array.prototype.slice.call(viewer.querySelectorAll("li.step"));
    var counter = viewer.querySelector("[data-counter]");
    var buttons = {};
    viewer.querySelectorAll("[data-go]").forEach(function (b) { buttons[b.getAttribute("data-go")] = b; });
    var current = 0;
    function show(i, updateHash) {
      current = Math.max(0, Math.min(steps.length - 1, i));
      steps.forEach(function (s, k) { s.hidden = k !== current; });
      counter.textContent = "step " + (current + 1) + " / " + steps.length;
      buttons.first.disabled = buttons.prev.disabled = current === 0;
      buttons.last.disabled = buttons.next.disabled = current === steps.length - 1;
      if (updateHash && window.history && window.history.replaceState) {
        window.history.replaceState(null, "", "#step-" + (current + 1));
      }
    }
    var moves = { first: function () { return 0; }, prev: function () { return current - 1; },
                  next: function () { return current + 1; }, last: function () { return steps.length - 1; } };
    Object.keys(moves).forEach(function (name) {
      buttons[name].addEventListener("click", function () { show(moves[name](), true); });
    });
    viewer.addEventListener("keydown", function (event) {
      var to = null;
      if (event.key === "ArrowRight" || event.key === " " || event.key === "PageDown") { to = current + 1; }
      else if (event.key === "ArrowLeft" || event.key === "PageUp") { to = current - 1; }
      else if (event.key === "Home") { to = 0; }
      else if (event.key === "End") { to = steps.length - 1; }
      if (to !== null) { event.preventDefault(); show(to, true); }
    });
    var match = /^#step-(\d+)$/.exec(window.location.hash);
    show(match ? parseInt(match[1], 10) - 1 : 0, false);
  });

  // -- the rules matrix: areas shown or hidden, and "only rows that differ"
  document.querySelectorAll("[data-matrix-filter]").forEach(function (form) {
    var rows = Array.prototype.slice.call(document.querySelectorAll("table.matrix tbody tr"));
    var shown = form.querySelector("[data-shown]");
    function apply() {
      var areas = {};
      form.querySelectorAll("input[name=area]").forEach(function (box) { areas[box.value] = box.checked; });
      var onlyDiffers = form.querySelector("input[name=differs]").checked;
      var count = 0;
      rows.forEach(function (row) {
        var visible = areas[row.getAttribute("data-area")] !== false;
        if (!row.classList.contains("area-head") && onlyDiffers && row.getAttribute("data-differs") !== "yes") { visible = false; }
        row.hidden = !visible;
        if (visible && !row.classList.contains("area-head")) { count += 1; }
      });
      shown.textContent = count + " rule points shown";
    }
    form.addEventListener("change", apply);
    form.addEventListener("submit", function (event) { event.preventDefault(); });
    apply();
  });

  // -- a source page opened at a quote: mark every stretch of that quote
  function markQuote() {
    var id = window.location.hash.slice(1);
    document.querySelectorAll("mark.current").forEach(function (m) { m.classList.remove("current"); });
    if (!/^q-[0-9a-f]+$/.test(id)) { return; }
    document.querySelectorAll("mark[data-q]").forEach(function (m) {
      if (m.getAttribute("data-q").split(" ").indexOf(id) >= 0) { m.classList.add("current"); }
    });
  }
  if (document.querySelector(".source-text")) {
    window.addEventListener("hashchange", markQuote);
    markQuote();
  }
}());
