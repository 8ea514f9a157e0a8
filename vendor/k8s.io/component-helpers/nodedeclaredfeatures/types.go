/*
Copyright 2025 The Kubernetes Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package nodedeclaredfeatures

import (
	"k8s.io/component-helpers/nodedeclaredfeatures/types"
)

// The following type aliases are provided as convenience to framework users.

type PodInfo = types.PodInfo
type Feature = types.Feature
type FeatureRequirements = types.FeatureRequirements
type RuntimeFeatures = types.RuntimeFeatures
type FeatureGate = types.FeatureGate
type StaticConfiguration = types.StaticConfiguration
type NodeConfiguration = types.NodeConfiguration
