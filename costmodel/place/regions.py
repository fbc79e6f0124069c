"""The region names each provider uses, to tell a typo from a region the price catalog simply lacks.

A region outside these lists is an input error (exit 2, with a did-you-mean); a listed region without a
price in the catalog is a candidate that cannot be priced (listed in the ranking with the reason).
Lists as the providers publish them (AWS commercial regions, Google Cloud regions, Azure region names).
"""
from __future__ import annotations

REGIONS: dict[str, tuple[str, ...]] = {
    "aws": (
        "us-east-1", "us-east-2", "us-west-1", "us-west-2", "af-south-1", "ap-east-1", "ap-south-1", "ap-south-2",
        "ap-southeast-1", "ap-southeast-2", "ap-southeast-3", "ap-southeast-4", "ap-southeast-5", "ap-southeast-7",
        "ap-northeast-1", "ap-northeast-2", "ap-northeast-3", "ca-central-1", "ca-west-1", "eu-central-1",
        "eu-central-2", "eu-west-1", "eu-west-2", "eu-west-3", "eu-south-1", "eu-south-2", "eu-north-1",
        "il-central-1", "me-south-1", "me-central-1", "mx-central-1", "sa-east-1",
    ),
    "gcp": (
        "us-central1", "us-east1", "us-east4", "us-east5", "us-south1", "us-west1", "us-west2", "us-west3",
        "us-west4", "northamerica-northeast1", "northamerica-northeast2", "northamerica-south1",
        "southamerica-east1", "southamerica-west1", "europe-central2", "europe-north1", "europe-north2",
        "europe-southwest1", "europe-west1", "europe-west2", "europe-west3", "europe-west4", "europe-west6",
        "europe-west8", "europe-west9", "europe-west10", "europe-west12", "asia-east1", "asia-east2",
        "asia-northeast1", "asia-northeast2", "asia-northeast3", "asia-south1", "asia-south2", "asia-southeast1",
        "asia-southeast2", "australia-southeast1", "australia-southeast2", "me-central1", "me-central2", "me-west1",
        "africa-south1",
    ),
    "azure": (
        "eastus", "eastus2", "centralus", "northcentralus", "southcentralus", "westcentralus", "westus", "westus2",
        "westus3", "canadacentral", "canadaeast", "brazilsouth", "northeurope", "westeurope", "uksouth", "ukwest",
        "francecentral", "francesouth", "germanywestcentral", "germanynorth", "swedencentral", "switzerlandnorth",
        "switzerlandwest", "norwayeast", "norwaywest", "polandcentral", "italynorth", "spaincentral", "eastasia",
        "southeastasia", "japaneast", "japanwest", "koreacentral", "koreasouth", "centralindia", "southindia",
        "westindia", "australiaeast", "australiasoutheast", "australiacentral", "uaenorth", "qatarcentral",
        "israelcentral", "southafricanorth", "mexicocentral",
    ),
}

#: The object store a replica is priced as, by provider (the catalog item ``prices.storage_item``).
STORAGE_ITEMS: dict[str, str] = {"aws": "s3_standard", "gcp": "gcs_standard", "azure": "blob_hot"}
