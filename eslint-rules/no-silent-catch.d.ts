import type { ESLint, Rule } from 'eslint';

/** The local plugin (eslint.config.js registers it as `local`); its one rule is `no-silent-catch`. */
declare const plugin: ESLint.Plugin & { rules: { 'no-silent-catch': Rule.RuleModule } };
export default plugin;
