/// Discovers references nobody declared, from runtime metadata. (Being built.)
public enum ReferenceReflection {}
