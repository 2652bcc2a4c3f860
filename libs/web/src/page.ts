import { html, type SafeHtml } from './html.js';

export interface NavSection {
  path: string;
  label: string;
}

export interface PageShell {
  /** The app's name, in the header and every title ("Vendor dashboard", "Staff back-office"). */
  brand: string;
  /** The app's stylesheet and script (served by its assets controller; no inline script). */
  assets: { css: string; js: string };
  headerClass?: string;
  title: string;
  /** The sections the signed-in person may open; none before sign-in. */
  sections?: readonly NavSection[];
  /** Path of the current section, marked with aria-current in the navigation. */
  current?: string;
  /** Who is signed in and the sign-out forms, right of the navigation. */
  who?: SafeHtml;
  body: SafeHtml;
}

/** The page shell both signed-in apps share: skip link, landmarks, navigation, one h1. */
export function pageShell(page: PageShell): SafeHtml {
  const nav = page.sections
    ? html`<nav aria-label="Main"><ul>${page.sections.map(
        (section) => html`<li><a href="${section.path}"${page.current === section.path ? html` aria-current="page"` : ''}>${section.label}</a></li>`,
      )}</ul></nav>`
    : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · ${page.brand}</title>
<link rel="stylesheet" href="${page.assets.css}">
<script src="${page.assets.js}" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header${page.headerClass ? html` class="${page.headerClass}"` : ''}><p class="brand">${page.brand}</p>${nav}${page.who ?? ''}</header>
<main id="main" tabindex="-1">
<h1>${page.title}</h1>
${page.body}
</main>
</body>
</html>`;
}
