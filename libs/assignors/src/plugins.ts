/**
 * `@cohort/assignors/plugins`, for Node only: loading assignor plugin modules from disk (the node's
 * ASSIGNOR_PLUGINS). Kept out of the main entry, which browser bundles (the SDK's leader-side
 * assignment) import and which must not reach `node:fs` or `require`.
 */
export {
  loadAssignorPlugins,
  parsePluginList,
  exportedAssignors,
  resolveModuleSpec,
  type LoadPluginsOptions,
} from './registry/load-plugins';
