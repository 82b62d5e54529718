/** Stylesheets are imported for their effect: esbuild bundles them into the console's one stylesheet. */
declare module "*.css";
