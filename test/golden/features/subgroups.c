// refused: LoomError: subgroupAdd: the c target cannot call subgroup functions: its work-items run one after another, so none of them ever run in lockstep as a subgroup
