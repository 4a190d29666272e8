// What the plugin loads when first needed, as one chunk: the panel and the confirmation dialog
// share their components, so two chunks would each carry a copy of them.
export { StartupPanel } from './panel';
export { createConfirm } from './dialog';
