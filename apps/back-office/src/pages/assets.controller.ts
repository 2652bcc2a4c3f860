import { assetsController, PAGE_CSS } from '#web';

/** The dashboard's styles, with a dark staff header so nobody mistakes the back-office for a vendor's page. */
const CSS = `${PAGE_CSS}
header.staff { background: #1b1f24; color: #fff; } header.staff nav a { color: #cfe3ff; } header.staff nav a[aria-current="page"] { color: #fff; }
header.staff .who { color: #e5e7eb; }
.age-old { color: var(--bad); font-weight: 600; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; } dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; }
td .detail { overflow-wrap: anywhere; font-size: 14px; } td .detail .detail { margin-left: 12px; } td code { overflow-wrap: anywhere; }
.detail-items { margin: 0; padding-left: 16px; }
textarea { min-height: 80px; width: 100%; max-width: 640px; }
.scroll { overflow-x: auto; } .evidence .detail { overflow-wrap: anywhere; font-size: 14px; } .evidence .detail .detail { margin-left: 12px; }
ol.notes { padding-left: 20px; } ol.notes li p { margin: 2px 0; } form.filters { display: flex; flex-wrap: wrap; align-items: center; gap: 8px 12px; } form.filters label, form.filters p { margin: 0; } form.filters select { max-width: 100%; width: auto; }
@media (max-width: 640px) { dl.facts { grid-template-columns: 1fr; } dl.facts dd { margin-bottom: 8px; } }
`;

/** /assets/back-office.css and /assets/back-office.js. */
export const AssetsController = assetsController('back-office', CSS);
