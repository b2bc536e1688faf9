/**
 * A wrong type makes every range check fail too ("must be a string; must be shorter than 1024
 * characters"); the type is what the client got wrong, so only it is reported.
 */
const TYPE_CONSTRAINTS = [
  'isDefined',
  'isString',
  'isInt',
  'isArray',
  'isBoolean',
  'isObject',
  'isIn',
  'isUrl',
  'nestedValidation',
];

export function relevantMessages(constraints: Record<string, string>): string[] {
  const typeMessages = TYPE_CONSTRAINTS.filter((name) => name in constraints).map((name) => constraints[name]);
  return typeMessages.length > 0 ? typeMessages : Object.values(constraints);
}
