import { type AclBinding, type AclResourceType, RESOURCE_TYPES, WILDCARD_RESOURCE } from '@cohort/protocol';

/** The bindings of one resource type, laid out for lookups by the name a request asks about. */
export interface ResourceSection {
  /** LITERAL bindings by exact resource name (without `*`). */
  readonly literal: ReadonlyMap<string, readonly AclBinding[]>;
  /** LITERAL `*`: every resource of the type. */
  readonly wildcard: readonly AclBinding[];
  /** PREFIXED bindings by prefix. */
  readonly prefixed: ReadonlyMap<string, readonly AclBinding[]>;
  /** The distinct prefix lengths in `prefixed`, ascending, so a lookup tries only lengths that exist. */
  readonly prefixLengths: readonly number[];
}

/**
 * An immutable index of a set of bindings, as Kafka's StandardAuthorizerData keeps them sorted by
 * resource: finding the bindings that match a name costs one map lookup for the literal name, one
 * per distinct prefix length, and the wildcard list, however many bindings there are.
 */
export class AclIndex {
  readonly sections: Readonly<Record<AclResourceType, ResourceSection>>;
  /** True when some binding names a host other than `*`, so decisions depend on the client address. */
  readonly hostSensitive: boolean;

  constructor(bindings: readonly AclBinding[]) {
    const build = {} as Record<AclResourceType, ResourceSection>;
    for (const type of RESOURCE_TYPES)
      build[type] = section(bindings.filter((binding) => binding.resourceType === type));
    this.sections = build;
    this.hostSensitive = bindings.some((binding) => binding.host !== '*');
  }
}

function section(bindings: readonly AclBinding[]): ResourceSection {
  const literal = new Map<string, AclBinding[]>();
  const prefixed = new Map<string, AclBinding[]>();
  const wildcard: AclBinding[] = [];
  for (const binding of bindings) {
    if (binding.patternType === 'PREFIXED') push(prefixed, binding.resourceName, binding);
    else if (binding.resourceName === WILDCARD_RESOURCE) wildcard.push(binding);
    else push(literal, binding.resourceName, binding);
  }
  const prefixLengths = [...new Set([...prefixed.keys()].map((prefix) => prefix.length))].sort((a, b) => a - b);
  return { literal, wildcard, prefixed, prefixLengths };
}

function push(map: Map<string, AclBinding[]>, key: string, binding: AclBinding): void {
  const list = map.get(key);
  if (list) list.push(binding);
  else map.set(key, [binding]);
}
