import type { NextFunction, Request, Response } from 'express';

/** Kept in code rather than files so the build needs no asset copy step; shared by the dashboard and the back-office. */
export const PAGE_CSS = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #4a5563; --accent: #0b5cad; --bad: #a4161a; --good: #1f6f3f; --line: #c9ced6; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, sans-serif; color: var(--ink); background: #fff; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 8px; z-index: 10; }
header { display: flex; flex-wrap: wrap; gap: 16px; align-items: center; padding: 8px 24px; border-bottom: 1px solid var(--line); background: #f5f7fa; }
.brand { font-weight: 700; margin: 0; }
nav ul { list-style: none; display: flex; flex-wrap: wrap; gap: 12px; margin: 0; padding: 0; }
nav a { color: var(--accent); } nav a[aria-current="page"] { font-weight: 700; color: var(--ink); }
.who { margin-left: auto; display: flex; gap: 8px; align-items: center; color: var(--muted); font-size: 14px; }
main { padding: 16px 24px 48px; max-width: 1200px; }
table { border-collapse: collapse; width: 100%; margin: 16px 0; } th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #f5f7fa; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
label { display: block; font-weight: 600; margin-top: 12px; }
input, select, textarea, button { font: inherit; }
input[type=text], input[type=email], input[type=password], input[type=date], select, textarea { padding: 6px 8px; border: 1px solid #6b7280; border-radius: 4px; min-width: 260px; }
button, .button { padding: 6px 14px; border: 1px solid var(--accent); background: var(--accent); color: #fff; border-radius: 4px; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary { background: #fff; color: var(--accent); } button.danger { background: var(--bad); border-color: var(--bad); }
:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
.errors { border: 2px solid var(--bad); padding: 8px 16px; margin: 16px 0; } .errors h2 { font-size: 18px; margin: 0; color: var(--bad); }
.notice { border-left: 4px solid var(--accent); background: #eef4fb; padding: 8px 16px; margin: 16px 0; }
.secret { font-family: ui-monospace, monospace; font-size: 15px; padding: 8px; background: #f5f7fa; border: 1px solid var(--line); word-break: break-all; }
.status-completed, .status-paid, .status-active { color: var(--good); font-weight: 600; } .status-failed, .status-revoked, .status-expired, .status-reversed { color: var(--bad); font-weight: 600; }
fieldset { border: 1px solid var(--line); margin: 12px 0; } legend { font-weight: 600; }
.checkbox label { display: inline; font-weight: 400; margin: 0 0 0 4px; } .checkbox { margin: 4px 0; }
.hint { color: var(--muted); font-size: 14px; margin: 2px 0; }
.filters { display: flex; flex-wrap: wrap; gap: 12px; align-items: flex-end; } .filters label { margin-top: 0; }
/* A choice as long as its longest option (a vendor's trading name) stays within the screen. */
.filters > div { max-width: 100%; } .filters select { max-width: 100%; }
.pager { display: flex; gap: 16px; }
meter { width: 320px; height: 20px; vertical-align: middle; }
figure { margin: 16px 0; max-width: 760px; }
.inline { display: inline; }
.table-box { max-width: 100%; overflow-x: auto; margin: 16px 0; } .table-box table { margin: 0; }
/* A caption is as wide as its table, so on a phone a centred one sat out of view in the scrolling box: it is held to the box's visible width (wrapping there) and stays put while the table scrolls. */
.table-box { container-type: inline-size; } .table-box caption { position: sticky; left: 0; max-width: 100cqw; }
h1 { overflow-wrap: anywhere; } code, dd, .notice, .errors { overflow-wrap: anywhere; }
/* A phone (390 px): less padding, fields as wide as the screen, one column of facts; tables scroll in their box. */
@media (max-width: 640px) {
  header { padding: 8px 12px; gap: 8px; } .who { margin-left: 0; flex-wrap: wrap; }
  main { padding: 12px 12px 40px; }
  th, td { padding: 4px 6px; }
  input[type=text], input[type=email], input[type=password], input[type=date], select, textarea { min-width: 0; width: 100%; }
  meter { width: 100%; }
  /* A filter's select is as wide as its longest option (a product's name); on a phone each filter takes a line of its own instead. */
  .filters > div { flex: 1 1 100%; min-width: 0; }
  .pager { flex-wrap: wrap; }
}
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; margin: 0; }
.table-scroll { overflow-x: auto; max-width: 100%; } .table-scroll table { min-width: 640px; }
`;

/** Progressive enhancement only: every action works without it. */
export const PAGE_SCRIPT = `
document.addEventListener('click', function (event) {
  var button = event.target.closest('[data-copy]');
  if (!button) return;
  var text = document.getElementById(button.getAttribute('data-copy')).textContent;
  navigator.clipboard.writeText(text).then(function () {
    var status = document.getElementById(button.getAttribute('data-copy') + '-status');
    if (status) status.textContent = 'Copied to the clipboard.';
  });
});
`;

/**
 * Every page is private to its user: never cached, never framed, scripts and styles only from
 * this origin (the pages have no inline script), forms only posted back here.
 */
export const PAGE_CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";

/** Express middleware setting the headers above on every response of a signed-in web app. */
export function pageSecurityHeaders(_request: Request, response: Response, next: NextFunction): void {
  response.setHeader('Cache-Control', 'no-store');
  response.setHeader('Content-Security-Policy', PAGE_CONTENT_SECURITY_POLICY);
  response.setHeader('Referrer-Policy', 'same-origin');
  next();
}
