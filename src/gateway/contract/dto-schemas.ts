import type { Type } from '@nestjs/common';
import type { MetadataStorage as TypeMetadataStorage } from 'class-transformer/types/MetadataStorage';
import { getMetadataStorage, IS_OPTIONAL, ValidationTypes } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';
import { validationMetadataArrayToSchemas } from 'class-validator-jsonschema';
import type { JsonSchema } from '@cohort/protocol/asyncapi';
import { unlessNull } from './schema-decorators';

// class-transformer keeps its @Type metadata in this module, without a typed entry point of its own.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { defaultMetadataStorage } = require('class-transformer/cjs/storage') as {
  defaultMetadataStorage: TypeMetadataStorage;
};

/** Where the derived schemas point to each other, as the AsyncAPI document holds them. */
export const SCHEMA_REF_PREFIX = '#/components/schemas/';

/**
 * The JSON Schemas of DTO classes, derived from their class-validator (and class-transformer @Type)
 * decorators by `class-validator-jsonschema`, with the two corrections its generic reading cannot make:
 * a field is optional only under @IsOptional (which also lets it be null), and @IsNullable's field is
 * required but may be null; any other @ValidateIf is refused, as no schema could say what it does.
 *
 * `roots` names the schemas of the top-level DTOs; a nested DTO is named by its class without `Dto`.
 * Refs point to SCHEMA_REF_PREFIX + name. Schemas keep the decorators' marks (descriptions, the
 * opaque-JSON keyword) for the document and the compiled checks to read.
 */
export function dtoSchemas(roots: Record<string, Type<unknown>>): Record<string, JsonSchema> {
  const classes = reachableClasses(Object.values(roots));
  const names = new Map<Type<unknown>, string>();
  for (const [name, dto] of Object.entries(roots)) names.set(dto, name);
  for (const cls of classes) if (!names.has(cls)) names.set(cls, cls.name.replace(/Dto$/, ''));
  const byClassName = new Map<string, string>();
  for (const [cls, name] of names) {
    if (byClassName.has(cls.name)) throw new Error(`two DTO classes are named ${cls.name}; rename one`);
    byClassName.set(cls.name, name);
  }

  // Each class's inherited rules are given as its own, so a DTO that only extends another (HeartbeatDto)
  // has a schema of its own instead of none.
  const metadatas = classes.flatMap((cls) =>
    metadataOf(cls).map((meta) => ({ ...byConstraintName(meta), target: cls }) as ValidationMetadata),
  );
  const generated = validationMetadataArrayToSchemas(metadatas, {
    classTransformerMetadataStorage: defaultMetadataStorage,
    refPointerPrefix: SCHEMA_REF_PREFIX,
  }) as Record<string, JsonSchema>;

  const schemas: Record<string, JsonSchema> = {};
  for (const cls of classes) {
    const schema = renameRefs(generated[cls.name], byClassName) as JsonSchema;
    schemas[names.get(cls)!] = withPresence(cls, schema);
  }
  return schemas;
}

/** The DTO classes `roots` validate, through @ValidateNested with @Type, in a stable order. */
function reachableClasses(roots: Type<unknown>[]): Type<unknown>[] {
  const seen: Type<unknown>[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const cls = queue.shift()!;
    if (seen.includes(cls)) continue;
    seen.push(cls);
    for (const meta of metadataOf(cls)) {
      if (meta.type !== ValidationTypes.NESTED_VALIDATION) continue;
      const type = defaultMetadataStorage.findTypeMetadata(meta.target as Type<unknown>, meta.propertyName);
      if (!type) throw new Error(`${cls.name}.${meta.propertyName} is @ValidateNested without @Type`);
      queue.push(type.typeFunction() as Type<unknown>);
    }
  }
  return seen;
}

/** A class's own and inherited validation metadata, for every group (the DTOs use none). */
function metadataOf(cls: Type<unknown>): ValidationMetadata[] {
  return getMetadataStorage().getTargetValidationMetadatas(cls, '', true, false);
}

/**
 * class-validator stores a built-in rule (IsString, MaxLength...) as a custom validation whose
 * constraint class carries the rule's name; the converters are keyed by that name (as the library
 * does when it reads the whole storage).
 */
function byConstraintName(meta: ValidationMetadata): ValidationMetadata {
  const [constraint] = meta.constraintCls ? getMetadataStorage().getTargetValidatorConstraints(meta.constraintCls) : [];
  return constraint ? ({ ...meta, type: constraint.name } as ValidationMetadata) : meta;
}

/** Required and nullable as class-validator decides them: see dtoSchemas. */
function withPresence(cls: Type<unknown>, schema: JsonSchema): JsonSchema {
  const properties = { ...(schema.properties as Record<string, JsonSchema>) };
  const required: string[] = [];
  for (const property of Object.keys(properties)) {
    const conditions = metadataOf(cls).filter(
      (meta) => meta.propertyName === property && meta.type === ValidationTypes.CONDITIONAL_VALIDATION,
    );
    const optional = conditions.some((meta) => meta.name === IS_OPTIONAL);
    const nullable = optional || conditions.some((meta) => meta.constraints[0] === unlessNull);
    if (conditions.length > 0 && !nullable)
      throw new Error(`${cls.name}.${property}: a @ValidateIf condition no schema can express`);
    if (!optional) required.push(property);
    if (nullable) properties[property] = orNull(properties[property]);
  }
  const { required: _generated, ...rest } = schema;
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) };
}

/** `schema` or null: a typed schema gains 'null' among its types (and values), any other is one branch of anyOf. */
function orNull(schema: JsonSchema): JsonSchema {
  if (typeof schema.type === 'string')
    return {
      ...schema,
      type: [schema.type, 'null'],
      ...(Array.isArray(schema.enum) ? { enum: [...(schema.enum as unknown[]), null] } : {}),
    };
  const { description, ...rest } = schema;
  return { anyOf: [rest, { type: 'null' }], ...(description !== undefined ? { description } : {}) };
}

function renameRefs(value: unknown, byClassName: Map<string, string>): unknown {
  if (Array.isArray(value)) return value.map((item) => renameRefs(item, byClassName));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    // A nested DTO is its schema: a `type: object` beside the ref (from @IsObject) would say it twice.
    if (key === 'type' && '$ref' in value) continue;
    if (key === '$ref' && typeof item === 'string' && item.startsWith(SCHEMA_REF_PREFIX)) {
      const className = item.slice(SCHEMA_REF_PREFIX.length);
      const name = byClassName.get(className);
      if (name === undefined)
        throw new Error(`a schema refers to ${className}, which is not a DTO reached from the roots`);
      out[key] = SCHEMA_REF_PREFIX + name;
    } else out[key] = renameRefs(item, byClassName);
  }
  return out;
}
