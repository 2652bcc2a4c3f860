import { assetsController, PAGE_CSS } from '#web';

/** /assets/dashboard.css and /assets/dashboard.js: the shared page styles and script. */
export const AssetsController = assetsController('dashboard', PAGE_CSS);
