// The AWS outputs casdoctor reads, as shapes: only the fields src/model/aws.ts describes (gather/shape.ts fits them).
import type { DataKind } from '../../model/snapshot.js';
import { arr, B, N, obj, S, type Shape, stringMap, strings } from './builders.js';

const minMax = obj({ Min: N, Max: N });
const instanceRequirements = obj({
  VCpuCount: minMax,
  MemoryMiB: minMax,
  AcceleratorCount: minMax,
  AcceleratorManufacturers: strings,
  AcceleratorTypes: strings,
});
const templateSpec = obj({ LaunchTemplateId: S, LaunchTemplateName: S, Version: S });

export const AWS_SHAPES: Partial<Record<DataKind, Shape>> = {
  autoScalingGroups: obj(
    {
      AutoScalingGroupName: S,
      AutoScalingGroupARN: S,
      LaunchConfigurationName: S,
      LaunchTemplate: templateSpec,
      MixedInstancesPolicy: obj({
        LaunchTemplate: obj({
          LaunchTemplateSpecification: templateSpec,
          Overrides: arr(
            obj({
              InstanceType: S,
              WeightedCapacity: S,
              InstanceRequirements: instanceRequirements,
              LaunchTemplateSpecification: templateSpec,
            }),
          ),
        }),
        InstancesDistribution: obj({}),
      }),
      MinSize: N,
      MaxSize: N,
      DesiredCapacity: N,
      AvailabilityZones: strings,
      Instances: arr(
        obj(
          {
            InstanceId: S,
            InstanceType: S,
            AvailabilityZone: S,
            LifecycleState: S,
            HealthStatus: S,
            LaunchTemplate: templateSpec,
            LaunchConfigurationName: S,
            ProtectedFromScaleIn: B,
          },
          ['InstanceId'],
        ),
      ),
      Tags: arr(obj({ Key: S, Value: S, ResourceId: S, ResourceType: S, PropagateAtLaunch: B }, ['Key'])),
      SuspendedProcesses: arr(obj({ ProcessName: S, SuspensionReason: S }, ['ProcessName'])),
      CreatedTime: 'time',
      Status: S,
      VPCZoneIdentifier: S,
    },
    ['AutoScalingGroupName'],
  ),
  launchTemplateVersions: obj({
    LaunchTemplateId: S,
    LaunchTemplateName: S,
    VersionNumber: N,
    DefaultVersion: B,
    CreateTime: 'time',
    LaunchTemplateData: obj({
      InstanceType: S,
      ImageId: S,
      InstanceRequirements: instanceRequirements,
      TagSpecifications: arr(obj({ ResourceType: S, Tags: arr(obj({ Key: S, Value: S }, ['Key'])) })),
      UserData: S,
    }),
  }),
  launchConfigurations: obj({ LaunchConfigurationName: S, InstanceType: S, ImageId: S }, ['LaunchConfigurationName']),
  instanceTypes: obj(
    {
      InstanceType: S,
      VCpuInfo: obj({ DefaultVCpus: N }),
      MemoryInfo: obj({ SizeInMiB: N }),
      GpuInfo: obj({ Gpus: arr(obj({ Count: N, Manufacturer: S, Name: S })) }),
      ProcessorInfo: obj({ SupportedArchitectures: strings }),
    },
    ['InstanceType'],
  ),
  instanceTypesFromRequirements: obj({ InstanceType: S }, ['InstanceType']),
  images: obj({ ImageId: S, Architecture: S, Name: S, VirtualizationType: S }, ['ImageId']),
  scalingActivities: obj({
    ActivityId: S,
    AutoScalingGroupName: S,
    Description: S,
    Cause: S,
    StartTime: 'time',
    EndTime: 'time',
    StatusCode: S,
    StatusMessage: S,
    Progress: N,
  }),
  iamEvaluationResults: obj(
    {
      EvalActionName: S,
      EvalResourceName: S,
      EvalDecision: S,
      MatchedStatements: arr(obj({ SourcePolicyId: S, SourcePolicyType: S })),
      MissingContextValues: strings,
    },
    ['EvalActionName'],
  ),
  eksNodegroups: obj(
    {
      nodegroupName: S,
      clusterName: S,
      nodegroupArn: S,
      labels: stringMap,
      taints: arr(obj({ key: S, value: S, effect: S })),
      capacityType: S,
      amiType: S,
      diskSize: N,
      version: S,
      instanceTypes: strings,
      scalingConfig: obj({ minSize: N, maxSize: N, desiredSize: N }),
      resources: obj({ autoScalingGroups: arr(obj({ name: S }, ['name'])) }),
      tags: stringMap,
    },
    ['nodegroupName'],
  ),
};
