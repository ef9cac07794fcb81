// The hookline console, used as a person would, in Debian's chromium driven
// by playwright-core. Run by tests/console_browser.rs, which starts hookline
// with a handler that refused two events (now dead letters), the first one
// also sent a second time (a duplicate), and passes:
//   CONSOLE_URL     the receiver's base URL
//   CONSOLE_TOKEN   admin.token
//   EVENT_IDS       the two dead events' IDs, comma-separated (stripe/acme)
//   SCREENSHOTS     directory for one PNG per page
// Exits non-zero, with the step that failed, when anything is not as a
// person would expect it.
import { chromium } from "playwright-core";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const base = process.env.CONSOLE_URL;
const token = process.env.CONSOLE_TOKEN;
const [first, second] = process.env.EVENT_IDS.split(",");
const shots = process.env.SCREENSHOTS;

const profile = mkdtempSync(join(tmpdir(), "hookline-chromium-"));
// A fresh profile (--user-data-dir) for every run.
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
  ],
  viewport: { width: 1280, height: 900 },
  timeout: 30000,
});

let step = "start";
let page;
const problems = [];
try {
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(10000);
  // A CSP violation or a script error is a bug, whatever the page shows.
  page.on("console", (m) => { if (m.type() === "error") problems.push(m.text()); });
  page.on("pageerror", (e) => problems.push(String(e)));
  page.on("response", (r) => { if (r.status() >= 400 && r.status() !== 401) problems.push(`${r.status()} ${r.url()}`); });
  const shot = (name) => page.screenshot({ path: join(shots, `${name}.png`), fullPage: true });
  const expectText = async (selector, text) => {
    await page.locator(selector, { hasText: text }).first().waitFor();
  };

  step = "signed out, the console sends to the sign-in form";
  await page.goto(`${base}/console/events`);
  if (!page.url().endsWith("/console/sign-in")) throw new Error(`at ${page.url()}`);
  await shot("sign-in");

  step = "sign in with the keyboard";
  await page.keyboard.type(token); // the field has the focus
  await page.keyboard.press("Enter");
  await page.waitForURL(`${base}/console`);
  await expectText("h1", "Overview");
  if (page.url().includes(token) || (await page.content()).includes(token)) {
    throw new Error("the token is in the URL or the page");
  }

  step = "the overview refreshes itself";
  await page.locator("#live[data-refreshed]").waitFor({ timeout: 9000 });
  await expectText("figcaption", "stripe / acme");
  await expectText("td code", "invalid_signature"); // rejected, counted
  await shot("overview");

  step = "find the event by ID";
  await page.getByRole("link", { name: "Events" }).click();
  await expectText("h1", "Events");
  await expectText("td", first);
  await shot("events");
  const find = page.getByRole("form", { name: "Find an event" });
  await find.getByLabel("provider").fill("stripe");
  await find.getByLabel("tenant").fill("acme");
  await find.getByLabel("event ID").fill(first);
  await find.getByRole("button", { name: "Find" }).click();
  await expectText("h1", first);

  step = "list the duplicates: the requests list, filtered by outcome";
  await page.getByRole("link", { name: "Events" }).click();
  await page.getByRole("navigation", { name: "Lists" }).getByRole("link", { name: "Requests" }).click();
  await expectText("h1", "Events");
  const filters = page.getByRole("form", { name: "Filters" });
  await filters.getByLabel("outcome").selectOption("duplicate");
  await filters.getByRole("button", { name: "Filter" }).click();
  await page.waitForURL(/outcome=duplicate/);
  const dupRow = page.locator("tbody tr", { hasText: first });
  await dupRow.locator(".badge.duplicate").waitFor();
  if ((await page.locator("tbody tr").count()) !== 1) throw new Error("not only the one duplicate");
  if (await page.locator("tbody tr", { hasText: second }).count()) throw new Error(`${second} is not a duplicate`);
  await shot("requests");
  await dupRow.getByRole("link", { name: first }).click();
  await expectText("h1", first);

  step = "see a delivery attempt";
  await expectText("tr.attempt td", "400");
  await expectText(".badge", "dead");
  await shot("event");

  step = "replay one dead letter (a selection)";
  await page.getByRole("link", { name: "Dead letters" }).click();
  await expectText("h1", "Dead letters");
  await shot("dead-letters");
  const row = page.locator("tr", { hasText: first });
  await row.getByRole("checkbox").check();
  await page.getByRole("button", { name: "Replay selected" }).click();
  await expectText(".notice", "1 dead letters replayed");

  step = "see it delivered";
  await page.goto(`${base}/console/events/stripe/acme/${first}`);
  for (let i = 0; i < 50; i++) {
    if (await page.locator(".badge.delivered").count()) break;
    await page.waitForTimeout(200);
    await page.reload();
  }
  await expectText(".badge", "delivered");
  await expectText("tr.attempt td", "200");

  step = "replay all matching, after a confirmation that counts them";
  await page.getByRole("link", { name: "Dead letters" }).click();
  await page.getByRole("link", { name: "Replay all matching…" }).click();
  await expectText("#count", "1");
  await shot("replay-all");
  await page.getByRole("button", { name: "Replay 1 dead letters" }).click();
  await expectText(".notice", "1 dead letters replayed");
  await page.goto(`${base}/console/events/stripe/acme/${second}`);
  for (let i = 0; i < 50; i++) {
    if (await page.locator(".badge.delivered").count()) break;
    await page.waitForTimeout(200);
    await page.reload();
  }
  await expectText(".badge", "delivered");

  // How far the page reaches past the screen, and the elements that do.
  const tooWide = () => page.evaluate(() => {
    const over = document.documentElement.scrollWidth - window.innerWidth;
    const culprits = [...document.querySelectorAll("body *")]
      // Inside a scrolling box is fine: that box scrolls, not the page.
      .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 1 && !e.closest(".scroll"))
      .slice(0, 4)
      .map((e) => `${e.tagName.toLowerCase()}.${e.className}`);
    return over > 1 ? `${over}px wider than the screen (${culprits.join(", ")})` : "";
  });

  step = "a phone-width screen: no page wider than the screen";
  await page.setViewportSize({ width: 390, height: 844 });
  const eventPage = page.url();
  for (const path of ["/console", "/console/events", "/console/dead-letters", "/console/events?list=accepted", "/console/events?list=requests"]) {
    await page.goto(`${base}${path}`);
    const over = await tooWide();
    if (over) throw new Error(`${path} is ${over}`);
  }
  await page.goto(eventPage);
  const over = await tooWide();
  if (over) throw new Error(`the event page is ${over}`);
  await shot("event-phone");
  await page.setViewportSize({ width: 1280, height: 900 });

  step = "every control reachable with Tab";
  await page.goto(`${base}/console/dead-letters`);
  const focused = new Set();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press("Tab");
    focused.add(await page.evaluate(() => document.activeElement?.textContent?.trim() || document.activeElement?.getAttribute("name")));
  }
  for (const want of ["Overview", "Events", "Dead letters", "Sign out", "Filter"]) {
    if (![...focused].includes(want)) throw new Error(`Tab never reaches "${want}": ${[...focused]}`);
  }

  step = "sign out, and be refused";
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL(`${base}/console/sign-in`);
  await page.goto(`${base}/console/dead-letters`);
  if (!page.url().endsWith("/console/sign-in")) throw new Error(`still in at ${page.url()}`);
  await expectText("h1", "Sign in");

  if (problems.length) throw new Error(`browser errors: ${problems.join(" | ")}`);
  console.log("console: every step passed");
} catch (e) {
  console.error(`console: failed at "${step}": ${e.message}`);
  const shown = await page?.locator("main").innerText().catch(() => "") ?? "";
  console.error(`the page (${page?.url()}) shows: ${shown.slice(0, 2000)}`);
  process.exitCode = 1;
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
