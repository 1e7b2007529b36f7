/** oidc-provider 8 ships no types; the test provider uses a handful of its calls. */
declare module 'oidc-provider';
