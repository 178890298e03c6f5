print("retain-graph: being built")
