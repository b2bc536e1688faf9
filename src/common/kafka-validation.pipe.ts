import { type ArgumentMetadata, ValidationPipe, type ValidationError } from '@nestjs/common';
import { KafkaError } from '@cohort/protocol';
import { prototypeKeysInNameMaps } from './name-maps';
import { relevantMessages } from './relevant-messages';

/**
 * class-validator for both transports. A payload that fails becomes KafkaError INVALID_REQUEST whose
 * message names every bad field by its path (`protocols.0.name must be a string`), which each
 * transport's exception filter shapes into its wire error. Types are never coerced: a string where a
 * number belongs is an error, not a conversion.
 */
export class KafkaValidationPipe extends ValidationPipe {
  constructor() {
    super({
      transform: true,
      whitelist: true,
      forbidUnknownValues: true,
      validationError: { target: false, value: false },
      exceptionFactory: (errors: ValidationError[]) =>
        KafkaError.of('INVALID_REQUEST', describeValidationErrors(errors)),
    });
  }

  /** A prototype key in a name map is refused before Nest's pipe deletes it unseen (name-maps.ts). */
  override async transform(value: unknown, metadata: ArgumentMetadata): Promise<unknown> {
    const problems = prototypeKeysInNameMaps(value, metadata.metatype);
    if (problems.length > 0) throw KafkaError.of('INVALID_REQUEST', `invalid fields: ${problems.join('; ')}`);
    return (await super.transform(value, metadata)) as unknown;
  }
}

export function describeValidationErrors(errors: ValidationError[]): string {
  const messages = errors.flatMap((error) => collect(error, ''));
  return messages.length > 0 ? `invalid fields: ${messages.join('; ')}` : 'the request is not a valid object';
}

function collect(error: ValidationError, parentPath: string): string[] {
  const path = parentPath === '' ? error.property : `${parentPath}.${error.property}`;
  // class-validator names the property in its own messages ("name must be a string"); replace the
  // leading property name with the full path so nested fields are unambiguous.
  const own = relevantMessages(error.constraints ?? {}).map((message) =>
    message.startsWith(`${error.property} `) ? `${path}${message.slice(error.property.length)}` : `${path}: ${message}`,
  );
  return [...own, ...(error.children ?? []).flatMap((child) => collect(child, path))];
}
