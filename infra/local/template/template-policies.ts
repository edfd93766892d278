import { envNames } from '../../../shared/kernel/config';
import { resourceGroups } from '../../../shared/edge/api/routes';
import { asArray, functionGroups, getAttOf, isObject, refTo, variablesOf, type CfnTemplate } from './cfn';

export type { CfnTemplate } from './cfn';

/**
 * Each function's role policies, read from the synthesized CloudFormation template, then resolved
 * to the local stack's resources: `Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub` (and `Fn::Select` of
 * `Fn::Split`) become the ARNs of the local table, bucket, user pool and sender.
 */

/** One statement of a function's role, as the template writes it (intrinsics unresolved). */
export interface TemplateStatement {
  /** `<policy logical id>#<1-based index>`, `<role id>/<inline policy name>#<index>`, then `(<Sid>)` if any. */
  id: string;
  statement: Record<string, unknown>;
}

/** What local IAM keeps of the template (cached between runs): every function's role statements. */
export type TemplatePolicies = ReturnType<typeof templatePolicies>;

const nameProperty: Record<string, string> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::SES::EmailIdentity': 'EmailIdentity',
  'AWS::SES::ConfigurationSet': 'Name',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::Events::EventBus': 'Name',
};

function statementsOf(document: unknown, prefix: string): TemplateStatement[] {
  const statements = isObject(document) ? asArray(document.Statement) : [];
  const sid = (statement: Record<string, unknown>) => (typeof statement.Sid === 'string' && statement.Sid ? ` (${statement.Sid})` : '');
  return statements.filter(isObject).map((statement, index) => ({ id: `${prefix}#${index + 1}${sid(statement)}`, statement }));
}

/**
 * Finds each resource group's function (its `POWERTOOLS_SERVICE_NAME`), its role and every policy
 * attached to that role: inline policies, `AWS::IAM::Policy` and `AWS::IAM::ManagedPolicy` resources
 * naming the role, and managed policy ARNs.
 */
export function templatePolicies(template: CfnTemplate, stackName: string) {
  const all = Object.entries(template.Resources);
  /**
   * Every resource's type, the name it declares, and the environment variable that hands a function its
   * `Ref` (TABLE_NAME, USER_POOL_ID…): the local stack sets that variable to the local resource.
   */
  const resources: Record<string, { type: string; name?: string; envVar?: string }> = {};
  /** Each KMS key's key policy, by logical id: KMS authorizes a call only if the key's policy lets IAM policies (or the caller) in. */
  const keyPolicies: Record<string, unknown> = {};
  for (const [id, resource] of all) {
    const property = nameProperty[resource.Type];
    const name = property ? resource.Properties?.[property] : undefined;
    resources[id] = { type: resource.Type, ...(typeof name === 'string' ? { name } : {}) };
    if (resource.Type === 'AWS::KMS::Key' && resource.Properties?.KeyPolicy) keyPolicies[id] = resource.Properties.KeyPolicy;
  }
  for (const [, resource] of all.filter(([, resource]) => resource.Type === 'AWS::Lambda::Function')) {
    for (const [variable, value] of Object.entries(variablesOf(resource))) {
      const target = refTo(value);
      if (target && resources[target]) resources[target].envVar = variable;
    }
  }
  const roles = [...functionGroups(template)].map(([functionId, group]) => {
    const properties = template.Resources[functionId]!.Properties;
    const roleId = getAttOf(properties?.Role) ?? refTo(properties?.Role);
    const role = roleId ? template.Resources[roleId] : undefined;
    if (!roleId || role?.Type !== 'AWS::IAM::Role') throw new Error(`The ${String(group)} function's role is not a role of the template`);
    const managedArns = asArray(role.Properties?.ManagedPolicyArns);
    const inline = asArray(role.Properties?.Policies).filter(isObject);
    const attached = all.filter(
      ([policyId, policy]) =>
        (policy.Type === 'AWS::IAM::Policy' || policy.Type === 'AWS::IAM::ManagedPolicy') &&
        (asArray(policy.Properties?.Roles).some((r) => refTo(r) === roleId) || managedArns.some((arn) => refTo(arn) === policyId)),
    );
    const statements = [
      ...inline.flatMap((policy) => statementsOf(policy.PolicyDocument, `${roleId}/${String(policy.PolicyName)}`)),
      ...attached.flatMap(([policyId, policy]) => statementsOf(policy.Properties?.PolicyDocument, policyId)),
    ];
    /** Managed policies from outside the template (AWS managed ones): not evaluated, named in the report. */
    const externalManagedPolicies = managedArns.filter((arn) => template.Resources[refTo(arn) ?? '']?.Type !== 'AWS::IAM::ManagedPolicy');
    return { group, functionId, roleId, statements, externalManagedPolicies };
  });
  roles.sort((a, b) => resourceGroups.indexOf(a.group) - resourceGroups.indexOf(b.group));
  return { stackName, roles, resources, keyPolicies };
}

/** The local account, region and environment the template's references resolve against. */
export interface LocalAccount {
  account: string;
  region: string;
  /** The functions' environment on the local stack (TABLE_NAME, USER_POOL_ID, MAIL_FROM…). */
  env: Record<string, string | undefined>;
}

export type ResolvedPolicies = ReturnType<typeof resolvePolicies>;

/** The address in `Name <address>` or a bare address. */
export const emailAddressOf = (from: string): string => /<([^>]+)>\s*$/.exec(from)?.[1] ?? from.trim();

export function resolvePolicies(policies: TemplatePolicies, local: LocalAccount) {
  const unresolved = new Set<string>();
  const { account, region, env } = local;
  const regional = (service: string, resource: string) => `arn:aws:${service}:${region}:${account}:${resource}`;
  const missing = (what: string) => {
    unresolved.add(what);
    return regional('unresolved', what.replace(/[^A-Za-z0-9./_-]/g, '_'));
  };
  /** Each type's ARN, from the resource's name: the types the roles' policies name (another is unresolved, and named in the report). */
  const arnOf: Record<string, (name: string) => string> = {
    'AWS::DynamoDB::Table': (name) => regional('dynamodb', `table/${name}`),
    'AWS::S3::Bucket': (name) => `arn:aws:s3:::${name}`,
    'AWS::Cognito::UserPool': (name) => regional('cognito-idp', `userpool/${name}`),
    'AWS::KMS::Key': (name) => regional('kms', `key/${name}`),
    'AWS::Logs::LogGroup': (name) => regional('logs', `log-group:${name}:*`),
    'AWS::Events::EventBus': (name) => regional('events', `event-bus/${name}`),
    'AWS::SQS::Queue': (name) => regional('sqs', name),
  };

  const nameOf = (id: string): string => {
    const resource = policies.resources[id];
    if (!resource) return missing(`Ref ${id}`);
    const fromEnv = resource.envVar ? env[resource.envVar] : undefined;
    // A queue's variable holds its URL (`…/<account>/<name>`): its name is the last segment.
    if (fromEnv) return resource.type === 'AWS::SQS::Queue' ? fromEnv.split('/').pop()! : fromEnv;
    const sender = env[envNames.mailFrom];
    if (resource.type === 'AWS::SES::EmailIdentity' && sender) return emailAddressOf(sender);
    return resource.name ?? id;
  };

  const pseudo: Record<string, string> = { 'AWS::Region': region, 'AWS::AccountId': account, 'AWS::Partition': 'aws', 'AWS::URLSuffix': 'amazonaws.com', 'AWS::StackName': policies.stackName };

  const ref = (id: string): string => pseudo[id] ?? nameOf(id);

  const getAtt = (id: string, attribute: string): string => {
    const type = policies.resources[id]?.type;
    // A table's stream: read by Lambda's pollers with the function's role, never by the function's code.
    if (type === 'AWS::DynamoDB::Table' && attribute === 'StreamArn') return regional('dynamodb', `table/${nameOf(id)}/stream/local`);
    const arn = attribute === 'Arn' && type ? arnOf[type] : undefined;
    return arn ? arn(nameOf(id)) : missing(`GetAtt ${id}.${attribute}`);
  };

  const sub = (text: string, variables: Record<string, unknown>): string =>
    text.replace(/\$\{([^}]+)\}/g, (match, name: string) => {
      if (name.startsWith('!')) return `\${${name.slice(1)}}`;
      if (name in variables) return resolveString(variables[name]);
      const [id, attribute] = name.split('.');
      return attribute ? getAtt(id!, attribute) : ref(id!);
    });

  function resolveList(value: unknown): unknown[] {
    if (isObject(value) && Array.isArray(value['Fn::Split'])) {
      const [separator, source] = value['Fn::Split'] as [string, unknown];
      return resolveString(source).split(separator);
    }
    return Array.isArray(value) ? value : [value];
  }

  function resolveString(value: unknown): string {
    const resolved = resolve(value);
    return typeof resolved === 'string' ? resolved : missing(JSON.stringify(value));
  }

  function resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map(resolve);
    if (!isObject(value)) return value;
    const keys = Object.keys(value);
    if (keys.length === 1 && (keys[0] === 'Ref' || keys[0]!.startsWith('Fn::'))) {
      const [key] = keys as [string];
      const argument = value[key];
      if (key === 'Ref' && typeof argument === 'string') return ref(argument);
      if (key === 'Fn::GetAtt') {
        const [id, attribute] = typeof argument === 'string' ? argument.split('.') : (argument as string[]);
        return getAtt(String(id), String(attribute));
      }
      if (key === 'Fn::Join' && Array.isArray(argument)) {
        const [separator, parts] = argument as [string, unknown];
        return resolveList(parts).map(resolveString).join(separator);
      }
      if (key === 'Fn::Sub') {
        const [text, variables] = typeof argument === 'string' ? [argument, {}] : (argument as [string, Record<string, unknown>]);
        return sub(text, variables ?? {});
      }
      if (key === 'Fn::Select' && Array.isArray(argument)) {
        const [index, list] = argument as [unknown, unknown];
        return resolve(resolveList(list).map(resolve)[Number(resolve(index))]);
      }
      return missing(JSON.stringify(value));
    }
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, resolve(inner)]));
  }

  const roles = new Map(
    policies.roles.map(({ group, roleId, statements, externalManagedPolicies }) => {
      const roleName = `${policies.stackName}-${roleId}`;
      const role = {
        group,
        roleName,
        roleArn: `arn:aws:iam::${account}:role/${roleName}`,
        /** The principal a call is made as: the function's session of its role, named as Lambda names it (`local-<group>`, as the gateway's context). */
        principal: `arn:aws:sts::${account}:assumed-role/${roleName}/local-${group}`,
        statements: statements.map(({ id, statement }): TemplateStatement => ({ id, statement: resolve(statement) as Record<string, unknown> })),
        externalManagedPolicies: externalManagedPolicies.map(resolveString),
      };
      return [group, role] as const;
    }),
  );
  /** Each KMS key's resolved key policy, by the key's local ARN. */
  const resourcePolicies = new Map<string, unknown>(Object.entries(policies.keyPolicies).map(([id, policy]) => [getAtt(id, 'Arn'), resolve(policy)]));
  /** References local IAM could not map to a local resource (they match nothing). */
  return { roles, resourcePolicies, unresolved: [...unresolved] };
}
