import { resourceGroups, type ResourceGroup } from '../../../shared/edge/api/routes';

/** A CloudFormation template, as far as the local stack reads it. */
export interface CfnTemplate { Resources: Record<string, CfnResource> }

export interface CfnResource { Type: string; Properties?: Record<string, unknown>; Metadata?: Record<string, unknown> }

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
export const asArray = (value: unknown): unknown[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
export const refTo = (value: unknown): string | undefined => (isObject(value) && typeof value.Ref === 'string' ? value.Ref : undefined);
export const getAttOf = (value: unknown): string | undefined => {
  const getAtt = isObject(value) ? value['Fn::GetAtt'] : undefined;
  if (typeof getAtt === 'string') return getAtt.split('.')[0];
  return Array.isArray(getAtt) && typeof getAtt[0] === 'string' ? getAtt[0] : undefined;
};
/** The logical id a `Ref` or an `Fn::GetAtt` names. */
export const referenced = (value: unknown): string | undefined => refTo(value) ?? getAttOf(value);

export function variablesOf(resource: CfnResource): Record<string, unknown> {
  const environment = resource.Properties?.Environment;
  return isObject(environment) && isObject(environment.Variables) ? environment.Variables : {};
}

/** Each resource group's function by logical id: the function whose `POWERTOOLS_SERVICE_NAME` names the group. */
export function functionGroups(template: CfnTemplate): Map<string, ResourceGroup> {
  const groups = new Map<string, ResourceGroup>();
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const group = variablesOf(resource).POWERTOOLS_SERVICE_NAME;
    if (resourceGroups.includes(group as ResourceGroup)) groups.set(id, group as ResourceGroup);
  }
  return groups;
}

/** A resource's construct path below its stack (`MailQueue/Queue`), or its logical id when the template has none. */
export function constructPath(id: string, resource: CfnResource, stackName: string): string {
  const path = resource.Metadata?.['aws:cdk:path'];
  if (typeof path !== 'string') return id;
  return path.replace(new RegExp(`^${stackName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/`), '').replace(/\/Resource$/, '');
}
