// The escaping template is shared with the staff back-office.
export { escapeHtml, html, raw, SafeHtml } from '#web';
