// Think-time clocks: every <time class="clock" data-deadline="ISO"> counts down to its deadline, once a second.
// No inline script (the Content-Security-Policy allows only this service's own files); htmx swaps new clocks in,
// so each tick looks them up afresh.
(function () {
  "use strict";
  function tick() {
    var now = Date.now();
    var clocks = document.querySelectorAll("time.clock[data-deadline]");
    for (var i = 0; i < clocks.length; i++) {
      var left = Math.max(0, Math.round((Date.parse(clocks[i].getAttribute("data-deadline")) - now) / 1000));
      var text = Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0");
      if (clocks[i].textContent !== text) {
        clocks[i].textContent = text;
      }
      clocks[i].classList.toggle("late", left <= 10);
    }
  }
  setInterval(tick, 1000);
  document.addEventListener("DOMContentLoaded", tick);
  document.addEventListener("htmx:afterSwap", tick);
})();
