// hookline console: the only script. Refreshes the overview's panels
// (#live, from its data-src) every 5 seconds without reloading the page.
"use strict";
(function () {
  const live = document.getElementById("live");
  if (!live) return;
  const src = live.dataset.src;
  async function refresh() {
    try {
      const res = await fetch(src, { credentials: "same-origin", cache: "no-store" });
      // Signed out (sent to the sign-in page): stop, the next click shows it.
      if (!res.ok || res.redirected) return;
      live.innerHTML = await res.text();
      live.dataset.refreshed = String(Date.now());
    } catch (e) {
      // Offline for a moment: try again at the next tick.
    }
    setTimeout(refresh, 5000);
  }
  setTimeout(refresh, 5000);
})();
