// ESLint for the page's modules (timekeeper/serve/assets) and their tests (tests/js): the
// recommended rules, in the browser (the page) or in Node (the tests and this file).
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["timekeeper/serve/assets/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.browser } },
  },
  {
    // the service worker: a classic script run by the browser, its lists put in by the server
    files: ["timekeeper/serve/assets/sw.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.serviceworker, __SHELL__: "readonly" } },
  },
  {
    files: ["tests/js/**/*.js", "eslint.config.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: { ...globals.node } },
  },
];
