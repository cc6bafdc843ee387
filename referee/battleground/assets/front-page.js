
const live = document.getElementById("live");
let refreshes = 0;
async function refresh() {
  if (document.hidden) return;
  try {
    const response = await fetch("/", {cache: "no-store"});
    if (!response.ok) return;
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html").getElementById("live");
    if (fresh && fresh.innerHTML !== live.innerHTML) live.innerHTML = fresh.innerHTML;
    document.body.dataset.refreshes = String(++refreshes);
  } catch (error) {
    // The server is restarting or the network dropped: the page keeps what it shows until the next tick.
  }
}
setInterval(refresh, __REFRESH_MS__);
