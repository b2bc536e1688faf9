import { Command, Option } from 'commander';
import type { AclBinding } from '../admin-api';
import { type CommandContext, UsageError } from './command-context';
import { run } from './run-action';

interface AclFlags {
  principal?: string;
  host?: string;
  resourceType?: AclBinding['resourceType'];
  resourceName?: string;
  patternType?: AclBinding['patternType'];
  operation?: string;
  permission?: AclBinding['permission'];
}

/** The binding flags, shared by list, add and remove (kafka-acls.sh spells them differently; the fields are Kafka's). */
function withBindingFlags(command: Command): Command {
  return command
    .option('--principal <principal>', 'User:alice')
    .option('--host <host>', "client host ('*' for any)")
    .addOption(new Option('--resource-type <type>', 'resource type').choices(['GROUP', 'TOPIC', 'CLUSTER']))
    .option('--resource-name <name>', "resource name ('*' for every one)")
    .addOption(new Option('--pattern-type <type>', 'how the name matches').choices(['LITERAL', 'PREFIXED']))
    .option('--operation <operation>', 'READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, ALL, ...')
    .addOption(new Option('--permission <permission>', 'ALLOW or DENY').choices(['ALLOW', 'DENY']));
}

function filterOf(flags: AclFlags): Partial<AclBinding> {
  return Object.fromEntries(Object.entries(flags).filter(([, v]) => v !== undefined)) as Partial<AclBinding>;
}

const COLUMNS = ['PRINCIPAL', 'HOST', 'RESOURCE-TYPE', 'RESOURCE-NAME', 'PATTERN-TYPE', 'OPERATION', 'PERMISSION'];
const rowsOf = (acls: AclBinding[]) =>
  acls.map((a) => [a.principal, a.host, a.resourceType, a.resourceName, a.patternType, a.operation, a.permission]);

export function aclsCommand(context: CommandContext): Command {
  const acls = new Command('acls').description('access control lists (Kafka ACL bindings)');

  withBindingFlags(acls.command('list').description('bindings matching the filter flags (all without flags)')).action(
    run(async (flags: AclFlags) => {
      const found = await context.admin().listAcls(filterOf(flags));
      context.output().result(found, (all) => ({ columns: COLUMNS, rows: rowsOf(all) }));
    }),
  );

  withBindingFlags(acls.command('add').description('create a binding')).action(
    run(async (flags: AclFlags) => {
      const missing = ['principal', 'resourceType', 'resourceName', 'operation'].filter(
        (k) => flags[k as keyof AclFlags] === undefined,
      );
      if (missing.length > 0)
        throw new UsageError(
          `add needs ${missing.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(', ')}`,
        );
      const binding: AclBinding = {
        principal: flags.principal!,
        host: flags.host ?? '*',
        resourceType: flags.resourceType!,
        resourceName: flags.resourceName!,
        patternType: flags.patternType ?? 'LITERAL',
        operation: flags.operation!.toUpperCase() as AclBinding['operation'], // the node refuses an unknown one (400)
        permission: flags.permission ?? 'ALLOW',
      };
      await context.admin().createAcls([binding]);
      context.output().result({ created: [binding] }, (r) => ({ columns: COLUMNS, rows: rowsOf(r.created) }));
    }),
  );

  withBindingFlags(acls.command('remove').description('delete every binding matching the filter flags')).action(
    run(async (flags: AclFlags) => {
      const filter = filterOf(flags);
      if (Object.keys(filter).length === 0)
        throw new UsageError('remove needs at least one filter flag (it would delete every binding)');
      const { deleted } = await context.admin().deleteAcls([filter]);
      context.output().result({ deleted }, (r) => ({ columns: COLUMNS, rows: rowsOf(r.deleted) }));
    }),
  );

  return acls;
}
