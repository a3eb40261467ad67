// The page's language, settled before the page is wired: a link's, the one kept from before, or the
// browser's. main.js and engine.js import this first, so the static page is worded while the
// engine loads, the training worker starts in the same language, and every panel has its words.
import { chooseLanguage, keptLanguage, linkedLanguage, useLanguage } from './i18n.js';

await useLanguage(chooseLanguage(linkedLanguage(location.hash), keptLanguage(), navigator.languages));
